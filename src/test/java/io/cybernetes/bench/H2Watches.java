package io.cybernetes.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;

import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * Watches over one HTTP/2 connection read as Go's transport reads them (client-go's case): one
 * thread reads every frame of the connection and appends each stream's DATA to that stream's
 * pipe, from which a thread per watch reads — unlike the JDK HttpClient, which passes every
 * frame through its own schedulers. Only what a watch needs: GET requests without a body,
 * flow-control windows kept wide open, and the answer's status taken from its first header
 * field (200 is the static table's entry 8; anything else fails the stream).
 */
final class H2Watches implements Closeable {

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int DATA = 0, HEADERS = 1, RST_STREAM = 3, SETTINGS = 4, PING = 6, GOAWAY = 7,
            WINDOW_UPDATE = 8;
    private static final int END_STREAM = 0x1, ACK = 0x1, END_HEADERS = 0x4, PADDED = 0x8, PRIORITY = 0x20;
    private static final int WINDOW = 1 << 30;
    private static final byte[] END = new byte[0];

    private final SSLSocket socket;
    private final OutputStream out;
    private final DataInputStream in;
    private final String authority;
    private final Map<Integer, Pipe> streams = new ConcurrentHashMap<>();
    private final Thread reader;
    private int nextStream = 1;
    private long connectionConsumed;

    H2Watches(SSLSocketFactory sockets, int port) throws IOException {
        socket = (SSLSocket) sockets.createSocket("127.0.0.1", port);
        SSLParameters params = socket.getSSLParameters();
        params.setApplicationProtocols(new String[] {"h2"});
        socket.setSSLParameters(params);
        socket.startHandshake();
        if (!"h2".equals(socket.getApplicationProtocol())) {
            socket.close();
            throw new IOException("the server did not agree to h2 (ALPN: " + socket.getApplicationProtocol() + ")");
        }
        authority = "127.0.0.1:" + port;
        out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16));
        synchronized (out) {
            out.write(PREFACE);
            // ENABLE_PUSH 0, INITIAL_WINDOW_SIZE 2^30: the streams' windows; the connection's is widened below
            byte[] settings = {0, 2, 0, 0, 0, 0, 0, 4, (byte) (WINDOW >>> 24), 0, 0, 0};
            frame(SETTINGS, 0, 0, settings);
            windowUpdate(0, WINDOW - 65_535);
            out.flush();
        }
        reader = new Thread(this::readFrames, "h2-watches-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Opens a GET of {@code path} as a new stream; its body is read from the returned stream. */
    InputStream open(String path, String token) throws IOException {
        Pipe pipe = new Pipe();
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        // pseudo-headers by HPACK's static table (names may not be sent as literals): :method GET and :scheme
        // https whole (entries 2 and 7), :authority and :path by name (1 and 4) with a literal value
        block.write(0x82);
        block.write(0x87);
        block.write(0x01);
        string(block, authority);
        block.write(0x04);
        string(block, path);
        literal(block, "authorization", "Bearer " + token);
        literal(block, "accept", "application/json");
        synchronized (out) {
            int id = nextStream;
            nextStream += 2;
            streams.put(id, pipe);
            frame(HEADERS, END_STREAM | END_HEADERS, id, block.toByteArray());
            out.flush();
        }
        return pipe;
    }

    @Override
    public void close() throws IOException {
        socket.close();
        streams.values().forEach(p -> p.end(null));
    }

    private void readFrames() {
        byte[] header = new byte[9];
        try {
            while (true) {
                in.readFully(header);
                int length = (header[0] & 0xff) << 16 | (header[1] & 0xff) << 8 | header[2] & 0xff;
                int type = header[3] & 0xff;
                int flags = header[4] & 0xff;
                int stream = ((header[5] & 0x7f) << 24) | (header[6] & 0xff) << 16 | (header[7] & 0xff) << 8
                        | header[8] & 0xff;
                byte[] payload = new byte[length];
                in.readFully(payload);
                Pipe pipe = streams.get(stream);
                switch (type) {
                    case DATA -> data(stream, pipe, flags, payload);
                    case HEADERS -> {
                        int first = firstField(payload, ((flags & PADDED) != 0 ? 1 : 0)
                                + ((flags & PRIORITY) != 0 ? 5 : 0));
                        if (pipe != null && (first >= payload.length || (payload[first] & 0xff) != 0x88)) {
                            pipe.end(new IOException("stream " + stream + " answered with a status other than 200"));
                            streams.remove(stream);
                        } else if (pipe != null && (flags & END_STREAM) != 0) {
                            pipe.end(null);
                            streams.remove(stream);
                        }
                    }
                    case RST_STREAM -> {
                        if (pipe != null) {
                            pipe.end(new IOException("stream " + stream + " reset by the server (error code "
                                    + (payload.length == 4 ? payload[3] & 0xff : -1) + ")"));
                            streams.remove(stream);
                        }
                    }
                    case SETTINGS -> {
                        if ((flags & ACK) == 0) {
                            synchronized (out) {
                                frame(SETTINGS, ACK, 0, new byte[0]);
                                out.flush();
                            }
                        }
                    }
                    case PING -> {
                        if ((flags & ACK) == 0) {
                            synchronized (out) {
                                frame(PING, ACK, 0, payload);
                                out.flush();
                            }
                        }
                    }
                    case GOAWAY -> throw new EOFException("the server sent GOAWAY");
                    default -> { } // WINDOW_UPDATE, PRIORITY, CONTINUATION: nothing this client sends is held by them
                }
            }
        } catch (IOException e) {
            streams.values().forEach(p -> p.end(e));
            streams.clear();
        }
    }

    /** Where a header block's first field starts: after any dynamic table size updates (001xxxxx, 5-bit integer). */
    private static int firstField(byte[] block, int at) {
        while (at < block.length && (block[at] & 0xe0) == 0x20) {
            boolean more = (block[at] & 0x1f) == 0x1f;
            at++;
            while (more && at < block.length) {
                more = (block[at++] & 0x80) != 0;
            }
        }
        return at;
    }

    private void data(int stream, Pipe pipe, int flags, byte[] payload) throws IOException {
        int from = 0;
        int to = payload.length;
        if ((flags & PADDED) != 0 && to > 0) {
            from = 1;
            to -= payload[0] & 0xff;
        }
        if (pipe != null && to > from) {
            pipe.chunks.add(from == 0 && to == payload.length ? payload : java.util.Arrays.copyOfRange(payload, from, to));
            pipe.consumed += payload.length;
        }
        connectionConsumed += payload.length;
        // the windows never close: what was read is given back long before 2^30 bytes are used up
        if (connectionConsumed > WINDOW / 4 || pipe != null && pipe.consumed > WINDOW / 4) {
            synchronized (out) {
                if (connectionConsumed > WINDOW / 4) {
                    windowUpdate(0, (int) connectionConsumed);
                    connectionConsumed = 0;
                }
                if (pipe != null && pipe.consumed > WINDOW / 4) {
                    windowUpdate(stream, (int) pipe.consumed);
                    pipe.consumed = 0;
                }
                out.flush();
            }
        }
        if (pipe != null && (flags & END_STREAM) != 0) {
            pipe.end(null);
            streams.remove(stream);
        }
    }

    private void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        int n = payload.length;
        out.write(new byte[] {(byte) (n >>> 16), (byte) (n >>> 8), (byte) n, (byte) type, (byte) flags,
                (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8), (byte) stream});
        out.write(payload);
    }

    private void windowUpdate(int stream, int increment) throws IOException {
        frame(WINDOW_UPDATE, 0, stream, new byte[] {(byte) (increment >>> 24), (byte) (increment >>> 16),
                (byte) (increment >>> 8), (byte) increment});
    }

    /** A header field as HPACK's literal without indexing, new name, neither string Huffman coded. */
    private static void literal(ByteArrayOutputStream block, String name, String value) {
        block.write(0);
        string(block, name);
        string(block, value);
    }

    private static void string(ByteArrayOutputStream block, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        // HPACK's integer with a 7-bit prefix (the eighth bit, Huffman, is 0)
        int n = b.length;
        if (n < 127) {
            block.write(n);
        } else {
            block.write(127);
            n -= 127;
            while (n >= 128) {
                block.write(n % 128 + 128);
                n /= 128;
            }
            block.write(n);
        }
        block.write(b, 0, b.length);
    }

    /** One stream's body: the reader thread adds DATA payloads, the watch's thread reads them. */
    private static final class Pipe extends WatchDelivery.BlockReader {
        final BlockingQueue<byte[]> chunks = new LinkedBlockingQueue<>();
        /** Bytes of this stream read since its window was last widened (the reader thread's alone). */
        long consumed;
        private volatile IOException failure;
        private byte[] current = new byte[0];
        private int pos;

        void end(IOException why) {
            failure = why;
            chunks.add(END);
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            while (pos == current.length) {
                if (current == END) {
                    return -1;
                }
                try {
                    current = chunks.take();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException();
                }
                pos = 0;
                if (current == END) {
                    if (failure != null) {
                        throw failure;
                    }
                    return -1;
                }
            }
            int n = Math.min(len, current.length - pos);
            System.arraycopy(current, pos, b, off, n);
            pos += n;
            return n;
        }

        @Override
        public void close() {
            chunks.add(END);
        }
    }
}
