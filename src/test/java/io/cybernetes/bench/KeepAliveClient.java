package io.cybernetes.bench;

import javax.net.ssl.SSLContext;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A blocking HTTP/1.1 client on one kept-alive TLS connection, one per load thread, as
 * client-go holds them. Lighter than the JDK HttpClient, whose asynchronous machinery
 * would otherwise take much of the two cores the server is measured on.
 */
final class KeepAliveClient implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final String token;
    private final int port;

    /** The status and body of one response. */
    record Response(int status, String body) {
    }

    KeepAliveClient(SSLContext ssl, int port, String token) throws IOException {
        this.socket = ssl.getSocketFactory().createSocket("127.0.0.1", port);
        this.socket.setTcpNoDelay(true);
        this.in = new BufferedInputStream(socket.getInputStream(), 65536);
        this.out = socket.getOutputStream();
        this.token = token;
        this.port = port;
    }

    /** The port this client is connected to. */
    int port() {
        return port;
    }

    Response send(String method, String path, String body) throws IOException {
        return send(method, path, "application/json", body);
    }

    Response send(String method, String path, String contentType, String body) throws IOException {
        byte[] payload = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                + "\r\nAccept: application/json\r\nContent-Type: " + contentType + "\r\nContent-Length: "
                + payload.length
                + "\r\n\r\n";
        byte[] h = head.getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[h.length + payload.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(payload, 0, all, h.length, payload.length);
        out.write(all);
        out.flush();
        String status = line();
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        String header;
        while (!(header = line()).isEmpty()) {
            String lower = header.toLowerCase();
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(header.substring(15).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        ByteArrayOutputStream bodyOut = new ByteArrayOutputStream();
        if (chunked) {
            int size;
            while ((size = Integer.parseInt(line().trim(), 16)) > 0) {
                bodyOut.write(in.readNBytes(size));
                line();
            }
            line();
        } else if (length > 0) {
            bodyOut.write(in.readNBytes((int) length));
        }
        return new Response(code, bodyOut.toString(StandardCharsets.UTF_8));
    }

    private String line() throws IOException {
        StringBuilder sb = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            if (b != '\r') {
                sb.append((char) b);
            }
        }
        if (b < 0 && sb.isEmpty()) {
            throw new IOException("connection closed");
        }
        return sb.toString();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
