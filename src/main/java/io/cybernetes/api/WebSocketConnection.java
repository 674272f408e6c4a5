package io.cybernetes.api;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.net.InetSocketAddress;
import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A WebSocket (RFC 6455) once its handshake is done, either end: whole messages read (the
 * peer's fragments joined, pings answered, a close returned), messages written (masked
 * when this is the client), from several threads. {@link #connect} is the client's
 * handshake over TLS, for subprotocols the JDK's client will not send (Kubernetes'
 * {@code SPDY/3.1+portforward.k8s.io}); a kubelet endpoint does the server's.
 */
public final class WebSocketConnection {

    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    public static final int TEXT = 1;
    public static final int BINARY = 2;
    private static final int CLOSE = 8;
    private static final int PING = 9;
    private static final int PONG = 10;
    private static final int MAX_MESSAGE = 16 * 1024 * 1024;

    /** One whole message: its type (text or binary) and its bytes. */
    public record Message(int opcode, byte[] data) {
    }

    private final DataInputStream in;
    private final OutputStream out;
    private final String protocol;
    private final boolean client;
    private final java.io.Closeable connection;
    private final SecureRandom random = new SecureRandom();
    private boolean closeSent;
    private Runnable whenClosed;

    /** A WebSocket over the streams, its handshake done; {@code client} masks what it sends. */
    public WebSocketConnection(InputStream in, OutputStream out, String protocol, boolean client,
                               java.io.Closeable connection) {
        this.in = new DataInputStream(in);
        this.out = out;
        this.protocol = protocol;
        this.client = client;
        this.connection = connection;
    }

    /** Why a server would not switch protocols: its status and what it said. */
    public static final class Refused extends IOException {
        private final int code;
        private final String body;

        Refused(int code, String body) {
            super("the server answered " + code + ": " + body);
            this.code = code;
            this.body = body;
        }

        public int code() {
            return code;
        }

        public String body() {
            return body;
        }
    }

    /**
     * Opens a WebSocket to {@code uri} ({@code wss://host:port/path?query}) over TLS,
     * offering the subprotocols in order; a server that does not switch protocols is a
     * {@link Refused} with its answer.
     */
    public static WebSocketConnection connect(SSLContext tls, URI uri, List<String> protocols, Duration timeout)
            throws IOException {
        return connect(tls, uri, protocols, java.util.Map.of(), timeout);
    }

    /** As above, with more request headers (an Authorization, say). */
    public static WebSocketConnection connect(SSLContext tls, URI uri, List<String> protocols,
                                              java.util.Map<String, String> headers, Duration timeout)
            throws IOException {
        int port = uri.getPort() < 0 ? 443 : uri.getPort();
        String host = uri.getHost().replace("[", "").replace("]", "");
        SSLSocket s = (SSLSocket) tls.getSocketFactory().createSocket();
        try {
            javax.net.ssl.SSLParameters params = s.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS");
            s.setSSLParameters(params);
            s.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
            s.setTcpNoDelay(true);
            s.setSoTimeout((int) timeout.toMillis());
            s.startHandshake();
            byte[] nonce = new byte[16];
            new SecureRandom().nextBytes(nonce);
            String key = Base64.getEncoder().encodeToString(nonce);
            StringBuilder req = new StringBuilder("GET ").append(uri.getRawPath())
                    .append(uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery()).append(" HTTP/1.1\r\n")
                    .append("Host: ").append(uri.getAuthority()).append("\r\n")
                    .append("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n")
                    .append("Sec-WebSocket-Key: ").append(key).append("\r\n");
            headers.forEach((k, v) -> req.append(k).append(": ").append(v).append("\r\n"));
            if (!protocols.isEmpty()) {
                req.append("Sec-WebSocket-Protocol: ").append(String.join(", ", protocols)).append("\r\n");
            }
            req.append("\r\n");
            OutputStream out = s.getOutputStream();
            out.write(req.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = new java.io.BufferedInputStream(s.getInputStream());
            String head = readHead(in);
            String[] lines = head.split("\r\n");
            String[] status = lines[0].split(" ", 3);
            int code = status.length > 1 ? Integer.parseInt(status[1]) : 0;
            java.util.Map<String, String> answer = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                if (colon > 0) {
                    answer.put(lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim());
                }
            }
            if (code != 101) {
                byte[] body = answer.containsKey("Content-Length")
                        ? in.readNBytes(Math.min(64 * 1024, Integer.parseInt(answer.get("Content-Length"))))
                        : in.readNBytes(64 * 1024);
                s.close();
                throw new Refused(code, new String(body, StandardCharsets.UTF_8).trim());
            }
            if (!acceptKey(key).equals(answer.get("Sec-WebSocket-Accept"))) {
                s.close();
                throw new IOException("the server's Sec-WebSocket-Accept does not match the key");
            }
            String chosen = answer.getOrDefault("Sec-WebSocket-Protocol", "");
            if (!chosen.isEmpty() && !protocols.contains(chosen)) {
                s.close();
                throw new IOException("the server chose a subprotocol not offered: " + chosen);
            }
            s.setSoTimeout(0);
            return new WebSocketConnection(in, out, chosen, true, s);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private static String readHead(InputStream in) throws IOException {
        java.io.ByteArrayOutputStream head = new java.io.ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("the server closed the connection during the handshake");
            }
            head.write(b);
            if (head.size() > 64 * 1024) {
                throw new IOException("the handshake's answer is too long");
            }
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                    ? matched + 1 : b == '\r' ? 1 : 0;
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }

    /** The Sec-WebSocket-Accept of a key. */
    public static String acceptKey(String key) {
        try {
            byte[] sha = MessageDigest.getInstance("SHA-1").digest((key + GUID).getBytes(StandardCharsets.ISO_8859_1));
            return Base64.getEncoder().encodeToString(sha);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The subprotocol agreed ("" when none was). */
    public String protocol() {
        return protocol;
    }

    /** The next text or binary message; null once the peer closed (its close answered) or the connection ended. */
    public Message read() throws IOException {
        ByteArrayOutputStream whole = null;
        int type = 0;
        while (true) {
            int b0;
            int b1;
            try {
                b0 = in.readUnsignedByte();
                b1 = in.readUnsignedByte();
            } catch (EOFException e) {
                return null;
            }
            boolean fin = (b0 & 0x80) != 0;
            int opcode = b0 & 0x0F;
            long len = b1 & 0x7F;
            if (len == 126) {
                len = in.readUnsignedShort();
            } else if (len == 127) {
                len = in.readLong();
            }
            if (len < 0 || len > MAX_MESSAGE) {
                close(1009, "message too big");
                return null;
            }
            byte[] mask = new byte[4];
            boolean masked = (b1 & 0x80) != 0;
            if (masked) {
                in.readFully(mask);
            }
            byte[] payload = new byte[(int) len];
            in.readFully(payload);
            if (masked) {
                for (int i = 0; i < payload.length; i++) {
                    payload[i] ^= mask[i & 3];
                }
            }
            switch (opcode) {
                case CLOSE -> {
                    close(payload.length >= 2 ? ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF) : 1000, "");
                    return null;
                }
                case PING -> {
                    send(PONG, payload);
                    continue;
                }
                case PONG -> {
                    continue;
                }
                default -> {
                    // data, below
                }
            }
            if (opcode != 0) {
                type = opcode;
                whole = new ByteArrayOutputStream();
            }
            if (whole == null) {
                continue; // a continuation of nothing: ignored
            }
            whole.write(payload);
            if (whole.size() > MAX_MESSAGE) {
                close(1009, "message too big");
                return null;
            }
            if (fin) {
                return new Message(type, whole.toByteArray());
            }
        }
    }

    public void sendBinary(byte[] data) throws IOException {
        send(BINARY, data);
    }

    public void sendText(String text) throws IOException {
        send(TEXT, text.getBytes(StandardCharsets.UTF_8));
    }

    private synchronized void send(int opcode, byte[] data) throws IOException {
        if (closeSent) {
            throw new IOException("the WebSocket is closed");
        }
        ByteArrayOutputStream frame = new ByteArrayOutputStream(data.length + 10);
        frame.write(0x80 | opcode);
        int maskBit = client ? 0x80 : 0;
        if (data.length < 126) {
            frame.write(maskBit | data.length);
        } else if (data.length <= 0xFFFF) {
            frame.write(maskBit | 126);
            frame.write(data.length >>> 8);
            frame.write(data.length & 0xFF);
        } else {
            frame.write(maskBit | 127);
            for (int i = 7; i >= 0; i--) {
                frame.write((int) ((long) data.length >>> (8 * i)) & 0xFF);
            }
        }
        if (client) {
            byte[] mask = new byte[4];
            random.nextBytes(mask);
            frame.write(mask);
            byte[] masked = data.clone();
            for (int i = 0; i < masked.length; i++) {
                masked[i] ^= mask[i & 3];
            }
            frame.write(masked);
        } else {
            frame.write(data);
        }
        out.write(frame.toByteArray());
        out.flush();
    }

    /** Runs {@code action} once, when this end sends its close (at once when it has already). */
    public void whenClosed(Runnable action) {
        boolean now;
        synchronized (this) {
            now = closeSent;
            if (!now) {
                Runnable before = whenClosed;
                whenClosed = before == null ? action : () -> {
                    before.run();
                    action.run();
                };
            }
        }
        if (now) {
            action.run();
        }
    }

    /** Sends a close with the code (once); a client's connection is closed with it, a server's when its handler returns. */
    public synchronized void close(int code, String reason) {
        if (closeSent) {
            return;
        }
        byte[] r = reason.getBytes(StandardCharsets.UTF_8);
        byte[] payload = new byte[2 + r.length];
        payload[0] = (byte) (code >>> 8);
        payload[1] = (byte) code;
        System.arraycopy(r, 0, payload, 2, r.length);
        try {
            send(CLOSE, payload);
        } catch (IOException e) {
            // the peer is gone already
        }
        closeSent = true;
        if (whenClosed != null) {
            Runnable action = whenClosed;
            whenClosed = null;
            action.run();
        }
        if (client && connection != null) {
            try {
                connection.close();
            } catch (IOException e) {
                // gone already
            }
        }
    }
}
