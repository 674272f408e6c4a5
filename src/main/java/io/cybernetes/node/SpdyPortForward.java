package io.cybernetes.node;

import io.cybernetes.api.SpdySession;
import io.cybernetes.api.WebSocketConnection;
import io.fabric8.kubernetes.api.model.Pod;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Port forwarding as kubectl 1.32 asks for it: SPDY/3.1 frames carried in the binary
 * messages of a WebSocket (subprotocol {@value #PROTOCOL}), the kubelet's side of
 * Kubernetes' port-forward protocol over them ({@link SpdySession}). For each forwarded
 * connection the client opens two streams with the headers {@code streamtype}
 * ({@code error} or {@code data}), {@code port} and {@code requestid}; the data stream's
 * bytes go to the pod's port ({@link PortTargets}) and what comes back is sent on it, a
 * failure is written on the error stream.
 */
final class SpdyPortForward implements SpdySession.Handler {

    static final String PROTOCOL = "SPDY/3.1+portforward.k8s.io";

    /** One forwarded connection: its two streams and the connection to the port once the data stream came. */
    private static final class Forward {
        int errorStream;
        int dataStream;
        int port;
        PortTargets.Target target;
    }

    private final WebSocketConnection ws;
    private final Pod pod;
    private final SpdySession session;
    private final Map<String, Forward> byRequest = new ConcurrentHashMap<>();
    private final Map<Integer, Forward> byStream = new ConcurrentHashMap<>();

    SpdyPortForward(WebSocketConnection ws, Pod pod) {
        this.ws = ws;
        this.pod = pod;
        this.session = new SpdySession(new MessagesStream(ws), ws::sendBinary);
    }

    /** Serves frames until the client goes. */
    void run() throws IOException {
        try {
            session.serve(this);
        } finally {
            byStream.values().forEach(f -> {
                if (f.target != null) {
                    f.target.close();
                }
            });
            ws.close(1000, "");
        }
    }

    @Override
    public void reset(int stream) {
        Forward f = byStream.remove(stream);
        if (f != null && f.target != null) {
            f.target.close();
        }
    }

    /** A stream the client opened: paired with its partner by request id; the data stream connects. */
    @Override
    public void opened(int stream, Map<String, String> headers) throws IOException {
        String request = headers.getOrDefault("requestid", "");
        Forward f = byRequest.computeIfAbsent(request, r -> new Forward());
        byStream.put(stream, f);
        try {
            f.port = Integer.parseInt(headers.getOrDefault("port", ""));
        } catch (NumberFormatException e) {
            session.reset(stream);
            return;
        }
        if ("error".equals(headers.get("streamtype"))) {
            f.errorStream = stream;
            return;
        }
        f.dataStream = stream;
        try {
            f.target = PortTargets.open(pod, f.port);
        } catch (IOException e) {
            fail(f, e.getMessage());
            return;
        }
        Thread pump = new Thread(() -> pump(f), "port-forward-" + f.port);
        pump.setDaemon(true);
        pump.start();
    }

    /** What comes back from the port goes out on the data stream, then its end. */
    private void pump(Forward f) {
        byte[] buf = new byte[32 * 1024];
        try (InputStream from = f.target.from()) {
            int n;
            while ((n = from.read(buf)) >= 0) {
                if (n > 0) {
                    session.data(f.dataStream, buf, n, false);
                }
            }
            session.finish(f.dataStream);
        } catch (IOException e) {
            // the client or the port went
        }
    }

    private void fail(Forward f, String message) throws IOException {
        if (f.errorStream != 0) {
            byte[] m = message.getBytes(StandardCharsets.UTF_8);
            session.data(f.errorStream, m, m.length, true);
        }
        session.finish(f.dataStream);
    }

    @Override
    public void data(int stream, byte[] payload, boolean fin) throws IOException {
        Forward f = byStream.get(stream);
        if (f == null || f.target == null || stream != f.dataStream) {
            return;
        }
        try {
            if (payload.length > 0) {
                f.target.to().write(payload);
                f.target.to().flush();
            }
            if (fin) {
                f.target.endInput();
            }
        } catch (IOException e) {
            fail(f, "error forwarding port " + f.port + ": " + e.getMessage());
        }
    }

    /** The WebSocket's binary messages read as one stream of bytes, as the tunnel carries them. */
    private static final class MessagesStream extends InputStream {
        private final WebSocketConnection ws;
        private byte[] current = new byte[0];
        private int pos;
        private boolean ended;

        MessagesStream(WebSocketConnection ws) {
            this.ws = ws;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            while (pos >= current.length) {
                if (ended) {
                    return -1;
                }
                WebSocketConnection.Message m = ws.read();
                if (m == null) {
                    ended = true;
                    return -1;
                }
                current = m.data();
                pos = 0;
            }
            int n = Math.min(len, current.length - pos);
            System.arraycopy(current, pos, b, off, n);
            pos += n;
            return n;
        }
    }
}
