package io.cybernetes.api;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The server's end of a SPDY/3.1 session as Kubernetes' streaming protocols use it (exec,
 * attach and port-forward, on a raw upgraded connection or tunnelled in a WebSocket): the
 * peer opens streams with headers, each is answered with a SYN_REPLY, their DATA frames go
 * to a {@link Handler}, and the server writes DATA on them. Pings are answered; flow control
 * is left out, as Kubernetes' SPDY library leaves it out. Header blocks are compressed with
 * zlib and the SPDY/3 dictionary, one compression context per direction for the session.
 */
public final class SpdySession {

    /** The upgrade token a client sends in {@code Upgrade} for Kubernetes' SPDY streams. */
    public static final String UPGRADE = "SPDY/3.1";
    private static final int VERSION = 3;
    private static final int SYN_STREAM = 1;
    private static final int SYN_REPLY = 2;
    private static final int RST_STREAM = 3;
    private static final int PING = 6;
    private static final int GOAWAY = 7;
    private static final int FLAG_FIN = 1;
    private static final int MAX_FRAME = 16 * 1024 * 1024;
    private static final int CANCEL = 5;

    /** What the peer does on its streams. */
    public interface Handler {
        /** The peer opened {@code stream} with these headers (names in lower case); it has been answered. */
        void opened(int stream, Map<String, String> headers) throws IOException;

        /** Bytes on one of the peer's streams; {@code fin} when it sends no more on it. */
        void data(int stream, byte[] data, boolean fin) throws IOException;

        /** The peer reset a stream. */
        default void reset(int stream) {
        }
    }

    /** Where the session's frames go, each written whole. */
    public interface Sink {
        void write(byte[] frame) throws IOException;
    }

    private final InputStream input;
    private final Sink sink;
    private final Inflater inflater = new Inflater();
    private final Deflater deflater = new Deflater();

    public SpdySession(InputStream input, Sink sink) {
        this.input = input;
        this.sink = sink;
        deflater.setDictionary(dictionary());
    }

    /** Reads the peer's frames until it goes away or ends the connection. */
    public void serve(Handler handler) throws IOException {
        DataInputStream in = new DataInputStream(input);
        try {
            while (true) {
                int first;
                try {
                    first = in.readInt();
                } catch (EOFException e) {
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
                if ((first & 0x80000000) == 0) {
                    handler.data(first & 0x7FFFFFFF, payload, (flags & FLAG_FIN) != 0);
                } else if (!control(first & 0xFFFF, payload, handler)) {
                    return;
                }
            }
        } finally {
            synchronized (this) {
                inflater.end();
                deflater.end();
            }
        }
    }

    /** One control frame; false when the peer goes away. */
    private boolean control(int type, byte[] payload, Handler handler) throws IOException {
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
                handler.opened(stream, headers);
            }
            case PING -> send(frame(PING, 0, payload));
            case RST_STREAM -> handler.reset(b.getInt() & 0x7FFFFFFF);
            case GOAWAY -> {
                return false;
            }
            default -> {
                // SETTINGS, WINDOW_UPDATE, HEADERS: nothing to do
            }
        }
        return true;
    }

    /** Writes {@code length} bytes of {@code data} on a stream, ending it when {@code fin}. */
    public void data(int stream, byte[] data, int length, boolean fin) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8 + length);
        b.putInt(stream & 0x7FFFFFFF).putInt(((fin ? FLAG_FIN : 0) << 24) | length).put(data, 0, length);
        send(b.array());
    }

    /** Ends a stream: an empty DATA frame with FIN. */
    public void finish(int stream) throws IOException {
        data(stream, new byte[0], 0, true);
    }

    /** Refuses or cancels a stream. */
    public void reset(int stream) throws IOException {
        send(frame(RST_STREAM, 0, ByteBuffer.allocate(8).putInt(stream).putInt(CANCEL).array()));
    }

    private synchronized void reply(int stream) throws IOException {
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        p.writeBytes(ByteBuffer.allocate(4).putInt(stream).array());
        p.writeBytes(compress(new byte[4])); // no headers
        send(frame(SYN_REPLY, 0, p.toByteArray()));
    }

    private synchronized void send(byte[] frame) throws IOException {
        sink.write(frame);
    }

    private static byte[] frame(int type, int flags, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(8 + payload.length);
        b.putShort((short) (0x8000 | VERSION)).putShort((short) type);
        b.putInt((flags << 24) | payload.length);
        b.put(payload);
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
        try {
            ByteBuffer b = ByteBuffer.wrap(out.toByteArray());
            Map<String, String> headers = new LinkedHashMap<>();
            int pairs = b.getInt();
            for (int i = 0; i < pairs; i++) {
                byte[] name = new byte[b.getInt()];
                b.get(name);
                byte[] value = new byte[b.getInt()];
                b.get(value);
                headers.put(new String(name, StandardCharsets.UTF_8).toLowerCase(Locale.ROOT),
                        new String(value, StandardCharsets.UTF_8));
            }
            return headers;
        } catch (RuntimeException e) {
            throw new IOException("a SPDY header block that does not parse", e);
        }
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
}
