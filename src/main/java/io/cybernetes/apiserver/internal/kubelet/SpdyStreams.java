package io.cybernetes.apiserver.internal.kubelet;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.SpdySession;
import io.cybernetes.api.WebSocketConnection;
import io.cybernetes.apiserver.internal.LongRunningPermit;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpUpgradeHandler;
import jakarta.servlet.http.WebConnection;
import tools.jackson.databind.JsonNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * exec, attach and port-forward for a client that upgrades to SPDY/3.1 rather than to a
 * WebSocket — kubectl when its WebSocket upgrade is refused or turned off
 * ({@code KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false}, {@code KUBECTL_PORT_FORWARD_WEBSOCKETS=false}).
 * The protocol version is agreed through {@code X-Stream-Protocol-Version} as Kubernetes
 * agrees it; the connection to the node stays a WebSocket. For exec and attach the client's
 * streams (error, stdin, stdout, stderr, resize) are translated to and from the node's
 * {@code v5.channel.k8s.io} channels; for port-forward the SPDY session is passed through
 * whole, as kubectl itself tunnels it in a WebSocket.
 */
final class SpdyStreams {

    static final List<String> EXEC_PROTOCOLS = List.of("v5.channel.k8s.io", "v4.channel.k8s.io",
            "v3.channel.k8s.io", "v2.channel.k8s.io", "channel.k8s.io");
    static final List<String> PORT_FORWARD_PROTOCOLS = List.of("portforward.k8s.io");
    static final String NODE_EXEC_PROTOCOL = "v5.channel.k8s.io";
    static final String NODE_PORT_FORWARD_PROTOCOL = "SPDY/3.1+portforward.k8s.io";
    private static final String PROTOCOL_HEADER = "X-Stream-Protocol-Version";
    private static final long STREAMS_SECONDS = 30;
    private static final long CLIENT_CLOSE_SECONDS = 10;

    private SpdyStreams() {
    }

    static boolean isSpdy(HttpServletRequest request) {
        String connection = request.getHeader("Connection");
        return SpdySession.UPGRADE.equalsIgnoreCase(request.getHeader("Upgrade")) && connection != null
                && connection.toLowerCase(Locale.ROOT).contains("upgrade");
    }

    /**
     * The first of the client's protocol versions the server speaks; none in common is
     * refused with 403 as Kubernetes refuses it, the versions accepted in
     * {@code X-Accepted-Stream-Protocol-Versions}.
     */
    static String negotiate(HttpServletRequest request, HttpServletResponse response, List<String> server) {
        List<String> client = new ArrayList<>();
        var headers = request.getHeaders(PROTOCOL_HEADER);
        while (headers != null && headers.hasMoreElements()) {
            Arrays.stream(headers.nextElement().split(",")).map(String::trim).filter(p -> !p.isEmpty())
                    .forEach(client::add);
        }
        if (client.isEmpty()) {
            throw ApiException.badRequest("unable to upgrade: " + PROTOCOL_HEADER + " is required");
        }
        for (String p : client) {
            if (server.contains(p)) {
                return p;
            }
        }
        server.forEach(p -> response.addHeader("X-Accepted-Stream-Protocol-Versions", p));
        throw ApiException.of(403, "Forbidden", "unable to upgrade: unable to negotiate protocol: client supports "
                + goList(client) + ", server accepts " + goList(server));
    }

    private static String goList(List<String> items) {
        return "[" + String.join(" ", items) + "]";
    }

    /** Switches the client's connection to SPDY with the agreed version, then hands it to {@code start}. */
    static void upgrade(HttpServletRequest request, HttpServletResponse response, String protocol,
                        WebSocketConnection node, Consumer<WebConnection> start) throws IOException {
        response.setHeader("Connection", "Upgrade");
        response.setHeader("Upgrade", SpdySession.UPGRADE);
        response.setHeader(PROTOCOL_HEADER, protocol);
        try {
            request.upgrade(Upgraded.class).start = start;
            node.whenClosed(LongRunningPermit.handOff(request));
        } catch (IOException | RuntimeException e) {
            node.close(1000, "");
            throw e;
        } catch (jakarta.servlet.ServletException e) {
            node.close(1000, "");
            throw new IOException("the connection could not be upgraded to SPDY", e);
        }
    }

    /** The container's end of an upgraded connection: what to run on it once it is switched. */
    public static final class Upgraded implements HttpUpgradeHandler {
        private volatile Consumer<WebConnection> start;

        public Upgraded() {
            // made by the servlet container
        }

        @Override
        public void init(WebConnection connection) {
            start.accept(connection);
        }

        @Override
        public void destroy() {
            // each relay closes what it opened
        }
    }

    /** Port-forward: the client's SPDY session passed whole to the node's WebSocket and back. */
    static Consumer<WebConnection> tunnel(WebSocketConnection node) {
        return connection -> {
            daemon("spdy-port-forward-up", () -> {
                byte[] buf = new byte[64 * 1024];
                try (InputStream in = connection.getInputStream()) {
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                        if (n > 0) {
                            node.sendBinary(Arrays.copyOf(buf, n));
                        }
                    }
                } catch (IOException | RuntimeException e) {
                    // the client or the node went
                }
                node.close(1000, "");
            });
            daemon("spdy-port-forward-down", () -> {
                try {
                    OutputStream out = connection.getOutputStream();
                    WebSocketConnection.Message m;
                    while ((m = node.read()) != null) {
                        out.write(m.data());
                        out.flush();
                    }
                } catch (IOException | RuntimeException e) {
                    // the client or the node went
                }
                close(connection);
            });
        };
    }

    /** exec and attach: the client's SPDY streams relayed as the node's channels. */
    static Consumer<WebConnection> exec(WebSocketConnection node, String protocol, boolean stdin, boolean stdout,
                                        boolean stderr, boolean tty) {
        Set<String> expected = new java.util.HashSet<>(List.of("error"));
        if (stdin) {
            expected.add("stdin");
        }
        if (stdout) {
            expected.add("stdout");
        }
        if (stderr && !tty) {
            expected.add("stderr");
        }
        if (tty && !protocol.equals("v2.channel.k8s.io") && !protocol.equals("channel.k8s.io")) {
            expected.add("resize");
        }
        return connection -> new ExecRelay(node, protocol, Collections.unmodifiableSet(expected)).start(connection);
    }

    /** One exec or attach: the client's streams by type, the node's channels read once they are all open. */
    private static final class ExecRelay implements SpdySession.Handler {
        private static final int STDIN = 0;
        private static final int STDOUT = 1;
        private static final int STDERR = 2;
        private static final int ERROR = 3;
        private static final int RESIZE = 4;
        private static final int CLOSE = 255;

        private final WebSocketConnection node;
        private final String protocol;
        private final Set<String> expected;
        private final Map<String, Integer> streams = new ConcurrentHashMap<>();
        private final Map<Integer, String> types = new ConcurrentHashMap<>();
        private final CountDownLatch opened = new CountDownLatch(1);
        private final CountDownLatch clientGone = new CountDownLatch(1);
        private SpdySession session;

        ExecRelay(WebSocketConnection node, String protocol, Set<String> expected) {
            this.node = node;
            this.protocol = protocol;
            this.expected = expected;
        }

        void start(WebConnection connection) {
            OutputStream out;
            InputStream in;
            try {
                out = connection.getOutputStream();
                in = connection.getInputStream();
            } catch (IOException e) {
                node.close(1000, "");
                close(connection);
                return;
            }
            session = new SpdySession(in, frame -> {
                out.write(frame);
                out.flush();
            });
            daemon("spdy-exec-client", () -> {
                try {
                    session.serve(this);
                } catch (IOException | RuntimeException e) {
                    // the client went
                }
                clientGone.countDown();
                node.close(1000, "");
                close(connection);
            });
            daemon("spdy-exec-node", () -> pump(connection));
        }

        @Override
        public void opened(int stream, Map<String, String> headers) {
            String type = headers.getOrDefault("streamtype", "");
            streams.put(type, stream);
            types.put(stream, type);
            if (streams.keySet().containsAll(expected)) {
                opened.countDown();
            }
        }

        @Override
        public void data(int stream, byte[] data, boolean fin) throws IOException {
            String type = types.getOrDefault(stream, "");
            int channel = type.equals("stdin") ? STDIN : type.equals("resize") ? RESIZE : -1;
            if (channel < 0) {
                return;
            }
            if (data.length > 0) {
                byte[] message = new byte[data.length + 1];
                message[0] = (byte) channel;
                System.arraycopy(data, 0, message, 1, data.length);
                node.sendBinary(message);
            }
            if (fin && channel == STDIN) {
                node.sendBinary(new byte[] {(byte) CLOSE, STDIN});
            }
        }

        /** The node's channels to the client's streams, once the client opened them all; then each ended. */
        private void pump(WebConnection connection) {
            try {
                if (!opened.await(STREAMS_SECONDS, TimeUnit.SECONDS)) {
                    node.close(1000, "");
                    close(connection);
                    return;
                }
                ByteArrayOutputStream error = new ByteArrayOutputStream();
                WebSocketConnection.Message m;
                while ((m = node.read()) != null) {
                    byte[] d = m.data();
                    if (d.length < 2) {
                        continue;
                    }
                    Integer target = switch (d[0]) {
                        case STDOUT -> streams.get("stdout");
                        case STDERR -> streams.getOrDefault("stderr", streams.get("stdout"));
                        case ERROR -> {
                            error.write(d, 1, d.length - 1);
                            yield null;
                        }
                        default -> null;
                    };
                    if (target != null) {
                        session.data(target, Arrays.copyOfRange(d, 1, d.length), d.length - 1, false);
                    }
                }
                byte[] status = errorStream(error.toByteArray());
                if (status.length > 0) {
                    session.data(streams.get("error"), status, status.length, false);
                }
                for (int stream : streams.values()) {
                    session.finish(stream);
                }
                clientGone.await(CLIENT_CLOSE_SECONDS, TimeUnit.SECONDS);
            } catch (IOException | RuntimeException e) {
                // the client or the node went
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            node.close(1000, "");
            close(connection);
        }

        /**
         * What goes on the client's error stream: the node's Status as it is for v4 and v5;
         * for the older versions only a failure's message, as text.
         */
        private byte[] errorStream(byte[] status) {
            if (status.length == 0 || protocol.equals("v5.channel.k8s.io") || protocol.equals("v4.channel.k8s.io")) {
                return status;
            }
            try {
                JsonNode s = Json.MAPPER.readTree(status);
                return "Success".equals(s.path("status").asString()) ? new byte[0]
                        : s.path("message").asString().getBytes(StandardCharsets.UTF_8);
            } catch (RuntimeException e) {
                return status;
            }
        }
    }

    private static void daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    private static void close(WebConnection connection) {
        try {
            connection.close();
        } catch (Exception e) {
            // gone already
        }
    }
}
