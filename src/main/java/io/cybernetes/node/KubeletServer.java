package io.cybernetes.node;

import io.cybernetes.api.KubeletApi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSocket;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URLDecoder;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The kubelet endpoints of a fleet's nodes: each node listens on a port of its own (at its
 * address), over TLS with its own serving certificate, and answers only the API server —
 * a client certificate the cluster CA signed for {@value KubeletApi#CLIENT_COMMON_NAME}: no
 * certificate is 401, anyone else's 403, as a kubelet with webhook authorization answers. One
 * thread accepts for every node; each connection then has a thread of its own for its one
 * request (streams — logs followed, exec sessions — hold theirs for as long as they last).
 */
public final class KubeletServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KubeletServer.class);
    private static final int MAX_HEAD = 16 * 1024;

    /** Answers one request to a node. */
    public interface Handler {
        void handle(Request request, Response response) throws IOException;
    }

    /** One HTTP request: method, path, query (by name, every value), headers (lower-case names), and its socket. */
    public record Request(String method, String path, Map<String, List<String>> query, Map<String, String> headers,
                          InputStream body, Socket socket) {

        public String parameter(String name) {
            List<String> v = query.get(name);
            return v == null || v.isEmpty() ? null : v.get(0);
        }

        public boolean flag(String name) {
            String v = parameter(name);
            return v != null && (v.equals("1") || v.equalsIgnoreCase("true"));
        }

        /** Whether the peer is still there (a closed connection reads its end); asked while a stream is idle. */
        public boolean open() {
            try {
                int was = socket.getSoTimeout();
                socket.setSoTimeout(1);
                try {
                    return body.read() >= 0;
                } catch (SocketTimeoutException e) {
                    return true;
                } finally {
                    socket.setSoTimeout(was);
                }
            } catch (IOException e) {
                return false;
            }
        }
    }

    /** The answer: a status and headers, then a body of known length, or a stream sent in chunks. */
    public static final class Response {
        private final OutputStream out;
        private boolean committed;

        Response(OutputStream out) {
            this.out = out;
        }

        boolean committed() {
            return committed;
        }

        /** The status line and headers, and nothing else: for a switch of protocols, the raw stream follows. */
        public OutputStream head(int code, String reason, Map<String, String> headers) throws IOException {
            StringBuilder sb = new StringBuilder("HTTP/1.1 ").append(code).append(' ').append(reason).append("\r\n");
            headers.forEach((k, v) -> sb.append(k).append(": ").append(v).append("\r\n"));
            sb.append("\r\n");
            out.write(sb.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            committed = true;
            return out;
        }

        public void send(int code, String contentType, byte[] body) throws IOException {
            Map<String, String> h = new LinkedHashMap<>();
            h.put("Content-Type", contentType);
            h.put("Content-Length", Integer.toString(body.length));
            h.put("Connection", "close");
            head(code, reason(code), h).write(body);
            out.flush();
        }

        public void text(int code, String message) throws IOException {
            send(code, "text/plain; charset=utf-8", (message + "\n").getBytes(StandardCharsets.UTF_8));
        }

        /** Starts a 200 answer whose body is sent in chunks as it is written; closing the stream ends it. */
        public OutputStream chunked(String contentType) throws IOException {
            Map<String, String> h = new LinkedHashMap<>();
            h.put("Content-Type", contentType);
            h.put("Transfer-Encoding", "chunked");
            h.put("Connection", "close");
            OutputStream raw = head(200, "OK", h);
            return new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    write(new byte[] {(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    if (len == 0) {
                        return;
                    }
                    raw.write((Integer.toHexString(len) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    raw.write(b, off, len);
                    raw.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                }

                @Override
                public void flush() throws IOException {
                    raw.flush();
                }

                @Override
                public void close() throws IOException {
                    raw.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    raw.flush();
                }
            };
        }

        static String reason(int code) {
            return switch (code) {
                case 200 -> "OK";
                case 400 -> "Bad Request";
                case 401 -> "Unauthorized";
                case 403 -> "Forbidden";
                case 404 -> "Not Found";
                case 405 -> "Method Not Allowed";
                default -> code >= 500 ? "Internal Server Error" : "Status " + code;
            };
        }
    }

    private record Listener(ServerSocketChannel channel, SSLContext tls, Handler handler) {
    }

    private final Selector selector;
    private final ExecutorService connections = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "kubelet-connection");
        t.setDaemon(true);
        return t;
    });
    private final Thread acceptor;
    private volatile boolean running = true;

    public KubeletServer() throws IOException {
        this.selector = Selector.open();
        this.acceptor = new Thread(this::accept, "kubelet-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Serves {@code handler} at the address and port (0: any free one) over TLS; returns the port. */
    public int listen(String address, int port, SSLContext tls, Handler handler) throws IOException {
        ServerSocketChannel channel = ServerSocketChannel.open();
        channel.bind(new InetSocketAddress(address, port), 128);
        channel.configureBlocking(false);
        synchronized (this) {
            selector.wakeup();
            channel.register(selector, SelectionKey.OP_ACCEPT, new Listener(channel, tls, handler));
        }
        return ((InetSocketAddress) channel.getLocalAddress()).getPort();
    }

    private void accept() {
        while (running) {
            try {
                selector.select(1000);
                synchronized (this) {
                    // a listen() registering waits here until the selector is out of select()
                }
                for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                    SelectionKey key = it.next();
                    it.remove();
                    Listener l = (Listener) key.attachment();
                    SocketChannel ch;
                    while ((ch = l.channel().accept()) != null) {
                        ch.configureBlocking(true);
                        Socket plain = ch.socket();
                        plain.setTcpNoDelay(true); // streams send small messages: no waiting for an ACK
                        connections.execute(() -> serve(plain, l));
                    }
                }
            } catch (ClosedSelectorException e) {
                return;
            } catch (IOException e) {
                if (running) {
                    log.debug("kubelet endpoints: accept failed: {}", e.toString());
                }
            }
        }
    }

    private void serve(Socket plain, Listener l) {
        try (SSLSocket s = (SSLSocket) l.tls().getSocketFactory().createSocket(plain,
                plain.getInetAddress().getHostAddress(), plain.getPort(), true)) {
            s.setUseClientMode(false);
            s.setWantClientAuth(true);
            s.setSoTimeout(30_000);
            s.startHandshake();
            InputStream in = new BufferedInputStream(s.getInputStream());
            Response response = new Response(s.getOutputStream());
            Request request = read(in, s);
            if (request == null) {
                return;
            }
            String who = peer(s);
            if (who == null) {
                response.text(401, "Unauthorized");
                return;
            }
            if (!KubeletApi.CLIENT_COMMON_NAME.equals(who)) {
                response.text(403, "Forbidden (user=" + who + ", verb=" + request.method().toLowerCase(Locale.ROOT)
                        + ", resource=nodes, subresource(s)=[proxy])");
                return;
            }
            s.setSoTimeout(0);
            try {
                l.handler().handle(request, response);
            } catch (RuntimeException e) {
                log.warn("kubelet endpoints: {} {} failed", request.method(), request.path(), e);
                if (!response.committed()) {
                    response.text(500, "Internal Error: " + e.getMessage());
                }
            }
        } catch (IOException e) {
            log.debug("kubelet endpoints: connection ended: {}", e.toString());
        }
    }

    /** The common name of the client's certificate, or null without one. */
    static String peer(SSLSocket s) {
        try {
            Certificate[] chain = s.getSession().getPeerCertificates();
            if (chain.length == 0 || !(chain[0] instanceof X509Certificate cert)) {
                return null;
            }
            for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
                if (rdn.getType().equalsIgnoreCase("CN")) {
                    return rdn.getValue().toString();
                }
            }
            return "";
        } catch (SSLPeerUnverifiedException | InvalidNameException e) {
            return null;
        }
    }

    /** Reads the request line and headers (a body, if any, is left in the stream); null when there is none. */
    static Request read(InputStream in, Socket socket) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            if (head.size() > MAX_HEAD) {
                return null;
            }
            state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3))
                    ? state + 1 : b == '\r' ? 1 : 0;
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        String[] first = lines[0].split(" ");
        if (first.length < 2) {
            return null;
        }
        Map<String, String> headers = new TreeMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim());
            }
        }
        String target = first[1];
        int q = target.indexOf('?');
        String path = URLDecoder.decode(q < 0 ? target : target.substring(0, q), StandardCharsets.UTF_8);
        Map<String, List<String>> query = new LinkedHashMap<>();
        if (q >= 0) {
            for (String pair : target.substring(q + 1).split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                query.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
            }
        }
        return new Request(first[0], path, query, headers, in, socket);
    }

    @Override
    public void close() {
        running = false;
        try {
            for (SelectionKey k : selector.keys()) {
                k.channel().close();
            }
            selector.close();
        } catch (IOException e) {
            log.debug("kubelet endpoints: close: {}", e.toString());
        }
        connections.shutdownNow();
    }
}
