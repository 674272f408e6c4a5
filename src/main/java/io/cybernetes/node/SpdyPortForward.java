package io.cybernetes.node;

import io.cybernetes.api.WebSocketConnection;

import io.fabric8.kubernetes.api.model.Pod;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Port forwarding as kubectl 1.32 asks for it: SPDY/3.1 frames carried in the binary
 * messages of a WebSocket (subprotocol {@value #PROTOCOL}), the kubelet's side of
 * Kubernetes' port-forward protocol over them. For each forwarded connection the client
 * opens two streams with the headers {@code streamtype} ({@code error} or {@code data}),
 * {@code port} and {@code requestid}; each is answered, the data stream's bytes go to the
 * pod's port ({@link PortTargets}) and what comes back is sent on it, a failure is written
 * on the error stream. Pings are answered; flow control is left out, as Kubernetes' SPDY
 * library leaves it out. Header blocks are compressed with zlib and the SPDY/3 dictionary.
 */
final class SpdyPortForward {

    static final String PROTOCOL = "SPDY/3.1+portforward.k8s.io";
    private static final int VERSION = 3;
    private static final int SYN_STREAM = 1;
    private static final int SYN_REPLY = 2;
    private static final int RST_STREAM = 3;
    private static final int PING = 6;
    private static final int GOAWAY = 7;
    private static final int FLAG_FIN = 1;
    private static final int MAX_FRAME = 16 * 1024 * 1024;

    /** One forwarded connection: its two streams and the connection to the port once the data stream came. */
    private static final class Forward {
        int errorStream;
        int dataStream;
        int port;
        PortTargets.Target target;
    }

    private final WebSocketConnection ws;
    private final Pod pod;
    private final Inflater inflater = new Inflater();
    private final Deflater deflater = new Deflater();
    private final Map<String, Forward> byRequest = new ConcurrentHashMap<>();
    private final Map<Integer, Forward> byStream = new ConcurrentHashMap<>();

    SpdyPortForward(WebSocketConnection ws, Pod pod) {
        this.ws = ws;
        this.pod = pod;
        deflater.setDictionary(dictionary());
    }

    /** Serves frames until the client goes. */
    void run() throws IOException {
        DataInputStream in = new DataInputStream(new MessagesStream(ws));
        try {
            while (true) {
                int first;
                try {
                    first = in.readInt();
                } catch (java.io.EOFException e) {
                    return;
                }
                int flagsAndLength = in.readInt();
                int flags = flagsAndLength >>> 24;
                int length = flagsAndLength & 0xFFFFFF;
                if (length > MAX_FRAME) {
                    return;
                }
                byte[] payload = new byte[length];
                in.readFully(payload);
                if ((first & 0x80000000) != 0) {
                    control(first & 0xFFFF, flags, payload);
                } else {
                    data(first & 0x7FFFFFFF, flags, payload);
                }
            }
        } finally {
            byStream.values().forEach(f -> {
                if (f.target != null) {
                    f.target.close();
                }
            });
            inflater.end();
            deflater.end();
        }
    }

    private void control(int type, int flags, byte[] payload) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(payload);
        switch (type) {
            case SYN_STREAM -> {
                int stream = b.getInt() & 0x7FFFFFFF;
                b.getInt(); // associated stream
                b.getShort(); // priority and slot
                byte[] block = new byte[b.remaining()];
                b.get(block);
                Map<String, String> headers = headers(block);
                reply(stream);
                opened(stream, headers);
            }
            case PING -> send(frame(true, PING, 0, payload));
            case RST_STREAM -> {
                Forward f = byStream.remove(b.getInt() & 0x7FFFFFFF);
                if (f != null && f.target != null) {
                    f.target.close();
                }
            }
            case GOAWAY -> ws.close(1000, "");
            default -> {
                // SETTINGS, WINDOW_UPDATE, HEADERS: nothing to do
            }
        }
    }

    /** A stream the client opened: paired with its partner by request id; the data stream connects. */
    private void opened(int stream, Map<String, String> headers) throws IOException {
        String request = headers.getOrDefault("requestid", "");
        Forward f = byRequest.computeIfAbsent(request, r -> new Forward());
        byStream.put(stream, f);
        try {
            f.port = Integer.parseInt(headers.getOrDefault("port", ""));
        } catch (NumberFormatException e) {
            reset(stream);
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
                    send(dataFrame(f.dataStream, 0, buf, n));
                }
            }
            send(dataFrame(f.dataStream, FLAG_FIN, buf, 0));
        } catch (IOException e) {
            // the client or the port went
        }
    }

    private void fail(Forward f, String message) throws IOException {
        if (f.errorStream != 0) {
            byte[] m = message.getBytes(StandardCharsets.UTF_8);
            send(dataFrame(f.errorStream, FLAG_FIN, m, m.length));
        }
        send(dataFrame(f.dataStream, FLAG_FIN, new byte[0], 0));
    }

    private void data(int stream, int flags, byte[] payload) throws IOException {
        Forward f = byStream.get(stream);
        if (f == null || f.target == null || stream != f.dataStream) {
            return;
        }
        try {
            if (payload.length > 0) {
                f.target.to().write(payload);
                f.target.to().flush();
            }
            if ((flags & FLAG_FIN) != 0) {
                f.target.endInput();
            }
        } catch (IOException e) {
            fail(f, "error forwarding port " + f.port + ": " + e.getMessage());
        }
    }

    private void reply(int stream) throws IOException {
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        p.write(ByteBuffer.allocate(4).putInt(stream).array());
        p.write(compress(new byte[4])); // no headers
        send(frame(true, SYN_REPLY, 0, p.toByteArray()));
    }

    private void reset(int stream) throws IOException {
        send(frame(true, RST_STREAM, 0, ByteBuffer.allocate(8).putInt(stream).putInt(1).array()));
    }

    private synchronized void send(byte[] frame) throws IOException {
        ws.sendBinary(frame);
    }

    private static byte[] frame(boolean control, int type, int flags, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(8 + payload.length);
        b.putShort((short) (0x8000 | VERSION)).putShort((short) type);
        b.putInt((flags << 24) | payload.length);
        b.put(payload);
        return b.array();
    }

    private static byte[] dataFrame(int stream, int flags, byte[] data, int length) {
        ByteBuffer b = ByteBuffer.allocate(8 + length);
        b.putInt(stream & 0x7FFFFFFF).putInt((flags << 24) | length).put(data, 0, length);
        return b.array();
    }

    /** A SYN_STREAM's header block, decompressed (the session's one zlib stream, with the dictionary). */
    private Map<String, String> headers(byte[] block) throws IOException {
        inflater.setInput(block);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        try {
            while (true) {
                int n = inflater.inflate(buf);
                if (n == 0 && inflater.needsDictionary()) {
                    inflater.setDictionary(dictionary());
                    continue;
                }
                if (n == 0) {
                    break;
                }
                out.write(buf, 0, n);
            }
        } catch (DataFormatException e) {
            throw new IOException("a SPDY header block that does not inflate: " + e.getMessage(), e);
        }
        ByteBuffer b = ByteBuffer.wrap(out.toByteArray());
        Map<String, String> headers = new LinkedHashMap<>();
        int pairs = b.getInt();
        for (int i = 0; i < pairs; i++) {
            byte[] name = new byte[b.getInt()];
            b.get(name);
            byte[] value = new byte[b.getInt()];
            b.get(value);
            headers.put(new String(name, StandardCharsets.UTF_8).toLowerCase(java.util.Locale.ROOT),
                    new String(value, StandardCharsets.UTF_8));
        }
        return headers;
    }

    private byte[] compress(byte[] block) {
        deflater.setInput(block);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[1024];
        int n;
        while ((n = deflater.deflate(buf, 0, buf.length, Deflater.SYNC_FLUSH)) > 0) {
            out.write(buf, 0, n);
            if (n < buf.length) {
                break;
            }
        }
        return out.toByteArray();
    }

    /**
     * The SPDY/3 header compression dictionary (draft-mbelshe-httpbis-spdy-00, 2.6.10.1):
     * common header names and values, each behind its 32-bit length, then a run of common
     * status lines, dates and content types.
     */
    static byte[] dictionary() {
        String[] words = {"options", "head", "post", "put", "delete", "trace", "accept", "accept-charset",
            "accept-encoding", "accept-language", "accept-ranges", "age", "allow", "authorization", "cache-control",
            "connection", "content-base", "content-encoding", "content-language", "content-length",
            "content-location", "content-md5", "content-range", "content-type", "date", "etag", "expect", "expires",
            "from", "host", "if-match", "if-modified-since", "if-none-match", "if-range", "if-unmodified-since",
            "last-modified", "location", "max-forwards", "pragma", "proxy-authenticate", "proxy-authorization",
            "range", "referer", "retry-after", "server", "te", "trailer", "transfer-encoding", "upgrade",
            "user-agent", "vary", "via", "warning", "www-authenticate", "method", "get", "status", "200 OK",
            "version", "HTTP/1.1", "url", "public", "set-cookie", "keep-alive", "origin"};
        String tail = "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505"
                + "203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized"
                + "403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable"
                + "Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT"
                + "chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,"
                + "text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.";
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String w : words) {
            byte[] b = w.getBytes(StandardCharsets.US_ASCII);
            out.writeBytes(ByteBuffer.allocate(4).putInt(b.length).array());
            out.writeBytes(b);
        }
        out.writeBytes(tail.getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
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
