package io.cybernetes.apiserver.internal.kubelet;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.KubeletApi;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.internal.handlers.ResourceService;
import io.cybernetes.apiserver.internal.handlers.StreamedSubresource;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.websocket.CloseReason;
import jakarta.websocket.DeploymentException;
import jakarta.websocket.Endpoint;
import jakarta.websocket.EndpointConfig;
import jakarta.websocket.MessageHandler;
import jakarta.websocket.Session;
import jakarta.websocket.server.ServerContainer;
import jakarta.websocket.server.ServerEndpointConfig;
import org.springframework.stereotype.Component;
import tools.jackson.databind.node.ObjectNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code pods/exec} and {@code pods/attach} over WebSockets, as kube-apiserver proxies them
 * to the kubelet: the pod and container checked in its words, then a WebSocket opened to the
 * kubelet of the pod's node with the client's subprotocols ({@code v5.channel.k8s.io} for
 * kubectl 1.32, {@code v4.channel.k8s.io} for the Python client), and once the kubelet
 * agreed, the client's request upgraded with the same one; from then on every message is
 * passed through unchanged both ways, and a close on either side closes the other. A
 * request that does not upgrade to a WebSocket (SPDY) is refused with 400.
 */
@Component
final class PodStreams implements StreamedSubresource {

    private static final long HANDSHAKE_SECONDS = 30;

    private final ResourceService service;
    private final KubeletClient kubelets;
    private final HttpClient http;

    PodStreams(ResourceService service, KubeletClient kubelets) {
        this.service = service;
        this.kubelets = kubelets;
        this.http = HttpClient.newBuilder().sslContext(kubelets.tls()).connectTimeout(Duration.ofSeconds(10)).build();
    }

    @Override
    public boolean serves(ResourceType type, String subresource) {
        return ("exec".equals(subresource) || "attach".equals(subresource)) && "Pod".equals(type.kind())
                && type.group().isEmpty();
    }

    @Override
    public void serve(HttpServletRequest request, HttpServletResponse response, ResourceType type, String namespace,
                      String name, String subresource) throws IOException {
        if (!request.getMethod().equals("GET") && !request.getMethod().equals("POST")) {
            throw ApiException.methodNotAllowed();
        }
        boolean exec = subresource.equals("exec");
        List<String> command = request.getParameterValues("command") == null ? List.of()
                : Arrays.asList(request.getParameterValues("command"));
        boolean stdin = bool(request, "stdin");
        boolean stdout = bool(request, "stdout");
        boolean stderr = bool(request, "stderr");
        boolean tty = bool(request, "tty");
        if (!stdin && !stdout && !stderr) {
            throw ApiException.badRequest("you must specify at least 1 of stdin, stdout, stderr");
        }
        if (exec && command.isEmpty()) {
            throw ApiException.badRequest("you must specify at least one command for the container");
        }
        ObjectNode pod = service.get(type, namespace, name).value();
        String container = PodLogs.container(pod, name, request.getParameter("container"));
        String node = pod.path("spec").path("nodeName").asString("");
        if (node.isEmpty()) {
            throw ApiException.badRequest("pod " + name + " does not have a host assigned");
        }
        if (!isWebSocket(request)) {
            throw ApiException.badRequest("Upgrade request required");
        }
        StringJoiner q = new StringJoiner("&", "?", "");
        command.forEach(c -> q.add("command=" + URLEncoder.encode(c, StandardCharsets.UTF_8)));
        if (stdin) {
            q.add("input=1");
        }
        if (stdout) {
            q.add("output=1");
        }
        if (stderr) {
            q.add("error=1");
        }
        if (tty) {
            q.add("tty=1");
        }
        URI base = kubelets.base(node);
        URI uri = URI.create("wss://" + base.getAuthority() + (exec ? KubeletApi.EXEC : KubeletApi.ATTACH)
                + PodLogs.enc(namespace) + "/" + PodLogs.enc(name) + "/" + PodLogs.enc(container) + q);
        List<String> offered = protocols(request);
        Relay relay = new Relay();
        WebSocket toNode = connect(uri, offered, relay);
        String chosen = toNode.getSubprotocol();
        relay.node = toNode;
        upgrade(request, response, relay, chosen);
    }

    static boolean isWebSocket(HttpServletRequest request) {
        String connection = request.getHeader("Connection");
        return "websocket".equalsIgnoreCase(request.getHeader("Upgrade")) && connection != null
                && connection.toLowerCase().contains("upgrade");
    }

    private static List<String> protocols(HttpServletRequest request) {
        List<String> out = new ArrayList<>();
        var headers = request.getHeaders("Sec-WebSocket-Protocol");
        while (headers != null && headers.hasMoreElements()) {
            for (String p : headers.nextElement().split(",")) {
                if (!p.isBlank()) {
                    out.add(p.trim());
                }
            }
        }
        return out;
    }

    private static boolean bool(HttpServletRequest request, String name) {
        String v = request.getParameter(name);
        return v != null && (v.equals("1") || v.equalsIgnoreCase("true"));
    }

    /** Opens the WebSocket to the kubelet; a refusal becomes kube-apiserver's "unable to upgrade connection". */
    private WebSocket connect(URI uri, List<String> offered, Relay relay) {
        WebSocket.Builder b = http.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10));
        if (!offered.isEmpty()) {
            b.subprotocols(offered.get(0), offered.subList(1, offered.size()).toArray(String[]::new));
        }
        try {
            return b.buildAsync(uri, relay).get(HANDSHAKE_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof CompletionException c && c.getCause() != null ? c.getCause()
                    : e.getCause();
            if (cause instanceof WebSocketHandshakeException h) {
                Object body = h.getResponse().body();
                String text = body == null ? "" : body.toString().trim();
                throw ApiException.of(500, "InternalError", "Internal error occurred: unable to upgrade connection: "
                        + (text.isEmpty() ? "the kubelet answered " + h.getResponse().statusCode() : text));
            }
            throw KubeletClient.unreachable(URI.create("https://" + uri.getAuthority() + uri.getRawPath()),
                    cause instanceof IOException io ? io : new IOException(String.valueOf(cause.getMessage())));
        } catch (TimeoutException e) {
            throw ApiException.of(500, "", "Get \"https://" + uri.getAuthority() + uri.getRawPath()
                    + "\": i/o timeout");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ApiException.of(500, "", "interrupted");
        }
    }

    /** Upgrades the client's request to a WebSocket that relays to the kubelet's, with the subprotocol it chose. */
    private static void upgrade(HttpServletRequest request, HttpServletResponse response, Relay relay,
                                String protocol) throws IOException {
        Object container = request.getServletContext().getAttribute(ServerContainer.class.getName());
        if (!(container instanceof ServerContainer server)) {
            relay.closeNode();
            throw new IllegalStateException("the servlet container serves no WebSockets");
        }
        ServerEndpointConfig config = ServerEndpointConfig.Builder.create(Relay.class, request.getRequestURI())
                .subprotocols(protocol == null || protocol.isEmpty() ? List.of() : List.of(protocol))
                .configurator(new ServerEndpointConfig.Configurator() {
                    @Override
                    @SuppressWarnings("unchecked")
                    public <T> T getEndpointInstance(Class<T> type) {
                        return (T) relay;
                    }

                    @Override
                    public String getNegotiatedSubprotocol(List<String> supported, List<String> requested) {
                        return protocol == null ? "" : protocol;
                    }
                }).build();
        try {
            server.upgradeHttpToWebSocket(request, response, config, Map.of());
        } catch (DeploymentException | RuntimeException e) {
            relay.closeNode();
            throw new IOException("could not upgrade the request: " + e.getMessage(), e);
        }
        if (response.getStatus() != 101) {
            relay.closeNode();
        }
    }

    /**
     * Both ends of one session: the client's (a JSR-356 endpoint) and the kubelet's (the JDK
     * client's listener). Messages from the kubelet wait until the client's end is open.
     */
    public static final class Relay extends Endpoint implements WebSocket.Listener {
        volatile WebSocket node;
        private volatile Session client;
        /** What the kubelet sent before the client's end was open, to send once it is. */
        private final List<ClientOp> pending = new ArrayList<>();
        private final ByteArrayOutputStream partialBinary = new ByteArrayOutputStream();
        private final StringBuilder partialText = new StringBuilder();
        /** Sends to the kubelet one after another, as the JDK client wants them. */
        private CompletableFuture<?> toNode = CompletableFuture.completedFuture(null);

        @Override
        public void onOpen(Session session, EndpointConfig config) {
            session.setMaxIdleTimeout(0);
            session.setMaxBinaryMessageBufferSize(1 << 20);
            session.setMaxTextMessageBufferSize(1 << 20);
            session.addMessageHandler(ByteBuffer.class, (MessageHandler.Whole<ByteBuffer>) data -> {
                ByteBuffer copy = ByteBuffer.allocate(data.remaining()).put(data).flip();
                send(ws -> ws.sendBinary(copy, true));
            });
            session.addMessageHandler(String.class, (MessageHandler.Whole<String>) text ->
                    send(ws -> ws.sendText(text, true)));
            synchronized (this) {
                // what waited goes first, before anything the kubelet sends from now on
                for (ClientOp op : pending) {
                    run(session, op);
                }
                pending.clear();
                this.client = session;
            }
        }

        private synchronized void send(java.util.function.Function<WebSocket, CompletableFuture<WebSocket>> op) {
            WebSocket ws = node;
            if (ws == null) {
                return;
            }
            toNode = toNode.thenCompose(x -> op.apply(ws)).exceptionally(e -> null);
        }

        @Override
        public void onClose(Session session, CloseReason reason) {
            closeNode();
        }

        @Override
        public void onError(Session session, Throwable error) {
            closeNode();
        }

        void closeNode() {
            WebSocket ws = node;
            if (ws != null && !ws.isOutputClosed()) {
                send(w -> w.sendClose(WebSocket.NORMAL_CLOSURE, ""));
            }
        }

        // ---- the kubelet's side

        @Override
        public void onOpen(WebSocket webSocket) {
            webSocket.request(1);
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            byte[] bytes = new byte[data.remaining()];
            data.get(bytes);
            partialBinary.writeBytes(bytes);
            if (last) {
                byte[] whole = partialBinary.toByteArray();
                partialBinary.reset();
                toClient(s -> s.getBasicRemote().sendBinary(ByteBuffer.wrap(whole)));
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partialText.append(data);
            if (last) {
                String whole = partialText.toString();
                partialText.setLength(0);
                toClient(s -> s.getBasicRemote().sendText(whole));
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            toClient(s -> s.close(new CloseReason(CloseReason.CloseCodes.getCloseCode(statusCode), reason)));
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            toClient(s -> s.close(new CloseReason(CloseReason.CloseCodes.UNEXPECTED_CONDITION, "")));
        }

        private interface ClientOp {
            void apply(Session s) throws IOException;
        }

        /**
         * Does {@code op} on the client's session: at once when it is open, else once it
         * opens (never waiting here: the kubelet's first messages come before the upgrade).
         */
        private void toClient(ClientOp op) {
            Session s;
            synchronized (this) {
                s = client;
                if (s == null) {
                    pending.add(op);
                    return;
                }
            }
            run(s, op);
        }

        private synchronized void run(Session s, ClientOp op) {
            try {
                if (s.isOpen()) {
                    op.apply(s);
                }
            } catch (IOException | IllegalStateException e) {
                closeNode();
            }
        }
    }
}
