package io.cybernetes.node;

import io.cybernetes.api.WebSocketConnection;

import io.cybernetes.api.Json;
import tools.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The remote-command channel protocol over a WebSocket, as the kubelet speaks it for exec
 * and attach: each binary message one channel's bytes behind the channel's number (0 stdin,
 * 1 stdout, 2 stderr, 3 error, 4 terminal size); {@code v5.channel.k8s.io} also lets the
 * client close stdin ({@code [255, 0]}). On open an empty message goes on the first channel
 * the client reads; at the end one Status on the error channel (v4 and v5; the older
 * protocols get a failure's text only), then a normal close.
 */
final class StreamChannels {

    static final String V5 = "v5.channel.k8s.io";
    static final String V4 = "v4.channel.k8s.io";
    static final String V1 = "channel.k8s.io";
    static final List<String> PROTOCOLS = List.of(V5, V4, "v3.channel.k8s.io", "v2.channel.k8s.io", V1);
    static final int STDIN = 0;
    static final int STDOUT = 1;
    static final int STDERR = 2;
    static final int ERROR = 3;
    static final int RESIZE = 4;
    private static final int CLOSE = 255;

    private final WebSocketConnection ws;
    private final Stdin stdin = new Stdin();
    private volatile Thread session;
    private volatile boolean finished;
    private volatile boolean clientGone;

    StreamChannels(WebSocketConnection ws) {
        this.ws = ws;
    }

    /** What the client typed, until it closes stdin or goes. */
    InputStream stdin() {
        return stdin;
    }

    /** An output channel: each write one message. */
    OutputStream channel(int number) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                byte[] m = new byte[len + 1];
                m[0] = (byte) number;
                System.arraycopy(b, off, m, 1, len);
                ws.sendBinary(m);
            }
        };
    }

    /** Sends the opening empty message on the first channel the client reads. */
    void open(boolean stdout, boolean stderr) throws IOException {
        ws.sendBinary(new byte[] {(byte) (stdout ? STDOUT : stderr ? STDERR : ERROR)});
    }

    /**
     * Reads the client's messages on a thread of its own until it goes; when it does, the
     * session's thread is interrupted (a sleeping command stops) and stdin ends.
     */
    void start(Thread sessionThread) {
        this.session = sessionThread;
        Thread reader = new Thread(() -> {
            try {
                WebSocketConnection.Message m;
                while ((m = ws.read()) != null) {
                    if (m.data().length == 0) {
                        continue; // text frames carry channels as binary ones do (the Python client sends text)
                    }
                    int ch = m.data()[0] & 0xFF;
                    if (ch == STDIN) {
                        stdin.offer(java.util.Arrays.copyOfRange(m.data(), 1, m.data().length));
                    } else if (ch == CLOSE && ws.protocol().equals(V5) && m.data().length == 2
                            && m.data()[1] == STDIN) {
                        stdin.end();
                    }
                    // channel 4 (a terminal's size) changes nothing a simulated shell draws
                }
            } catch (IOException e) {
                // the connection ended
            }
            stdin.end();
            clientGone = true;
            Thread s = session;
            if (s != null && !finished) {
                s.interrupt();
            }
        }, "kubelet-stream-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Whether the client is still there. */
    boolean open() {
        return !clientGone;
    }

    /**
     * Ends the session with the command's exit code: the Status on the error channel as the
     * protocol wants it, then a normal close.
     */
    void finish(int exitCode, List<String> command) {
        finished = true;
        try {
            String protocol = ws.protocol();
            boolean statusProtocol = protocol.equals(V5) || protocol.equals(V4);
            if (statusProtocol) {
                ObjectNode status = Json.object();
                status.putObject("metadata");
                if (exitCode == 0) {
                    status.put("status", "Success");
                } else {
                    status.put("status", "Failure");
                    status.put("message", protocol.equals(V5)
                            ? "command terminated with non-zero exit code: command terminated with exit code " + exitCode
                            : "error executing command " + goList(command) + ", exit code " + exitCode);
                    status.put("reason", "NonZeroExitCode");
                    status.putObject("details").putArray("causes").addObject().put("reason", "ExitCode")
                            .put("message", Integer.toString(exitCode));
                }
                channel(ERROR).write(Json.MAPPER.writeValueAsBytes(status));
            } else if (exitCode != 0) {
                channel(ERROR).write(("error executing command " + goList(command) + ", exit code " + exitCode)
                        .getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            // the client went before the end
        }
        ws.close(1000, "");
    }

    /** A list as Go's %v prints a []string: {@code [sh -c exit 3]}. */
    static String goList(List<String> items) {
        return "[" + String.join(" ", items) + "]";
    }

    /** The client's stdin: what it sent, in order, and its end. */
    private static final class Stdin extends InputStream {
        private static final byte[] END = new byte[0];
        private final LinkedBlockingQueue<byte[]> chunks = new LinkedBlockingQueue<>();
        private byte[] current = new byte[0];
        private int pos;
        private boolean ended;

        void offer(byte[] b) {
            if (b.length > 0) {
                chunks.offer(b);
            }
        }

        void end() {
            chunks.offer(END);
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public synchronized int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            while (pos >= current.length) {
                if (ended) {
                    return -1;
                }
                try {
                    current = chunks.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("the session ended");
                }
                pos = 0;
                if (current == END) {
                    ended = true;
                    return -1;
                }
            }
            int n = Math.min(len, current.length - pos);
            System.arraycopy(current, pos, b, off, n);
            pos += n;
            return n;
        }
    }
}
