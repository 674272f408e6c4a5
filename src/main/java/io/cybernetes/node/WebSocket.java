package io.cybernetes.node;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The server side of a WebSocket (RFC 6455) on a kubelet connection: the handshake, with the
 * subprotocol chosen from those the client offers, then messages — the client's arrive
 * masked and maybe fragmented, pings are answered, a close is returned. Writes may come
 * from several threads.
 */
final class WebSocket {

    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    static final int TEXT = 1;
    static final int BINARY = 2;
    private static final int CLOSE = 8;
    private static final int PING = 9;
    private static final int PONG = 10;
    private static final int MAX_MESSAGE = 16 * 1024 * 1024;

    /** One whole message: its type (text or binary) and its bytes. */
    record Message(int opcode, byte[] data) {
    }

    private final DataInputStream in;
    private final OutputStream out;
    private final String protocol;
    private boolean closeSent;

    private WebSocket(InputStream in, OutputStream out, String protocol) {
        this.in = new DataInputStream(in);
        this.out = out;
        this.protocol = protocol;
    }

    /** Whether the request asks to become a WebSocket. */
    static boolean requested(KubeletServer.Request r) {
        return "websocket".equalsIgnoreCase(r.headers().get("upgrade"))
                && r.headers().getOrDefault("connection", "").toLowerCase().contains("upgrade");
    }

    /**
     * Completes the handshake with the first of {@code supported} the client offers (the last
     * of them when it offers none); answers 400 and returns null when it is no WebSocket
     * request or offers none of them.
     */
    static WebSocket accept(KubeletServer.Request r, KubeletServer.Response response, List<String> supported)
            throws IOException {
        String key = r.headers().get("sec-websocket-key");
        if (!requested(r) || key == null || !"13".equals(r.headers().get("sec-websocket-version"))) {
            response.text(400, "Bad Request: not a WebSocket version 13 handshake");
            return null;
        }
        String offered = r.headers().getOrDefault("sec-websocket-protocol", "");
        String chosen = null;
        boolean none = offered.isBlank();
        if (none) {
            chosen = supported.get(supported.size() - 1); // none offered: the plainest, without saying so
        }
        for (String p : offered.split(",")) {
            String name = p.trim();
            if (chosen == null && supported.contains(name)) {
                chosen = name;
            }
        }
        if (chosen == null) {
            response.text(400, "Bad Request: none of the offered subprotocols [" + offered + "] is supported: "
                    + supported);
            return null;
        }
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Upgrade", "websocket");
        h.put("Connection", "Upgrade");
        h.put("Sec-WebSocket-Accept", acceptKey(key));
        if (!none) {
            h.put("Sec-WebSocket-Protocol", chosen);
        }
        OutputStream raw = response.head(101, "Switching Protocols", h);
        return new WebSocket(r.body(), raw, chosen);
    }

    static String acceptKey(String key) {
        try {
            byte[] sha = MessageDigest.getInstance("SHA-1").digest((key + GUID).getBytes(StandardCharsets.ISO_8859_1));
            return Base64.getEncoder().encodeToString(sha);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    String protocol() {
        return protocol;
    }

    /** The next text or binary message; null once the peer closed (its close answered) or the connection ended. */
    Message read() throws IOException {
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

    void sendBinary(byte[] data) throws IOException {
        send(BINARY, data);
    }

    void sendText(String text) throws IOException {
        send(TEXT, text.getBytes(StandardCharsets.UTF_8));
    }

    private synchronized void send(int opcode, byte[] data) throws IOException {
        if (closeSent) {
            throw new IOException("the WebSocket is closed");
        }
        ByteArrayOutputStream frame = new ByteArrayOutputStream(data.length + 10);
        frame.write(0x80 | opcode);
        if (data.length < 126) {
            frame.write(data.length);
        } else if (data.length <= 0xFFFF) {
            frame.write(126);
            frame.write(data.length >>> 8);
            frame.write(data.length & 0xFF);
        } else {
            frame.write(127);
            for (int i = 7; i >= 0; i--) {
                frame.write((int) ((long) data.length >>> (8 * i)) & 0xFF);
            }
        }
        frame.write(data);
        out.write(frame.toByteArray());
        out.flush();
    }

    /** Sends a close with the code (once); the connection ends when the handler returns. */
    synchronized void close(int code, String reason) {
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
    }
}
