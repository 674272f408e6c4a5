package io.cybernetes.apiserver.internal.kubelet;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.KubeletApi;
import io.cybernetes.api.ResourceType;
import io.cybernetes.api.WebSocketConnection;
import io.cybernetes.apiserver.internal.LongRunningPermit;
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

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * {@code pods/exec}, {@code pods/attach} and {@code pods/portforward} over WebSockets, as kube-apiserver proxies them
 * to the kubelet: the pod and container checked in its words, then a WebSocket opened to the
 * kubelet of the pod's node with the client's subprotocols ({@code v5.channel.k8s.io} for
 * kubectl 1.32, {@code v4.channel.k8s.io} for the Python client), and once the kubelet
 * agreed, the client's request upgraded with the same one; from then on every message is
 * passed through unchanged both ways, and a close on either side closes the other. A
 * request upgrading to SPDY instead is served by {@link SpdyStreams}; one that upgrades to
 * neither is refused with 400.
 */
@Component
final class PodStreams implements StreamedSubresource {

    private static final long HANDSHAKE_SECONDS = 30;

    private final ResourceService service;
    private final KubeletClient kubelets;

    PodStreams(ResourceService service, KubeletClient kubelets) {
        this.service = service;
        this.kubelets = kubelets;
    }

    @Override
    public boolean serves(ResourceType type, String subresource) {
        return ("exec".equals(subresource) || "attach".equals(subresource) || "portforward".equals(subresource))
                && "Pod".equals(type.kind())
                && type.group().isEmpty();
    }

    @Override
    public void serve(HttpServletRequest request, HttpServletResponse response, ResourceType type, String namespace,
                      String name, String subresource) throws IOException {
        if (!request.getMethod().equals("GET") && !request.getMethod().equals("POST")) {
            throw ApiException.methodNotAllowed();
        }
        if (subresource.equals("portforward")) {
            portForward(request, response, type, namespace, name);
            return;
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
        String node = streamedNode(request, pod, name);
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
        if (SpdyStreams.isSpdy(request)) {
            String protocol = SpdyStreams.negotiate(request, response, SpdyStreams.EXEC_PROTOCOLS);
            WebSocketConnection toNode = connect(uri, List.of(SpdyStreams.NODE_EXEC_PROTOCOL));
            SpdyStreams.upgrade(request, response, protocol, toNode,
                    SpdyStreams.exec(toNode, protocol, stdin, stdout, stderr, tty));
            return;
        }
        relay(request, response, uri);
    }

    /**
     * {@code pods/portforward}: the pod on a node, then the WebSocket relayed to the node's
     * {@code portForward} — SPDY tunnelled in it for kubectl, or the channel protocol with
     * the {@code ports} asked for.
     */
    private void portForward(HttpServletRequest request, HttpServletResponse response, ResourceType type,
                             String namespace, String name) throws IOException {
        String node = streamedNode(request, service.get(type, namespace, name).value(), name);
        StringJoiner q = new StringJoiner("&", "?", "");
        q.setEmptyValue("");
        for (String ports : request.getParameterValues("ports") == null ? new String[0]
                : request.getParameterValues("ports")) {
            for (String p : ports.split(",")) {
                if (!p.isBlank()) {
                    q.add("port=" + URLEncoder.encode(p.trim(), StandardCharsets.UTF_8));
                }
            }
        }
        URI uri = URI.create("wss://" + kubelets.base(node).getAuthority() + KubeletApi.PORT_FORWARD
                + PodLogs.enc(namespace) + "/" + PodLogs.enc(name) + q);
        if (SpdyStreams.isSpdy(request)) {
            String protocol = SpdyStreams.negotiate(request, response, SpdyStreams.PORT_FORWARD_PROTOCOLS);
            WebSocketConnection toNode = connect(uri, List.of(SpdyStreams.NODE_PORT_FORWARD_PROTOCOL));
            SpdyStreams.upgrade(request, response, protocol, toNode, SpdyStreams.tunnel(toNode));
            return;
        }
        relay(request, response, uri);
    }

    /** Opens the kubelet's WebSocket with the client's subprotocols, then upgrades the client's with the one chosen. */
    private void relay(HttpServletRequest request, HttpServletResponse response, URI uri) throws IOException {
        WebSocketConnection toNode = connect(uri, protocols(request));
        Relay relay = new Relay(toNode);
        upgrade(request, response, relay, toNode.protocol());
    }

    /** The node of the pod a stream goes to, refused in kube-apiserver's words when it has none or the request does not upgrade. */
    private static String streamedNode(HttpServletRequest request, ObjectNode pod, String name) {
        String node = pod.path("spec").path("nodeName").asString("");
        if (node.isEmpty()) {
            throw ApiException.badRequest("pod " + name + " does not have a host assigned");
        }
        if (!isWebSocket(request) && !SpdyStreams.isSpdy(request)) {
            throw ApiException.badRequest("Upgrade request required");
        }
        return node;
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
    private WebSocketConnection connect(URI uri, List<String> offered) {
        try {
            return WebSocketConnection.connect(kubelets.tls(), uri, offered, Duration.ofSeconds(HANDSHAKE_SECONDS));
        } catch (WebSocketConnection.Refused r) {
            throw ApiException.of(500, "InternalError", "Internal error occurred: unable to upgrade connection: "
                    + (r.body().isEmpty() ? "the kubelet answered " + r.code() : r.body()));
        } catch (IOException e) {
            throw KubeletClient.unreachableForUpgrade(uri, e);
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
            return;
        }
        relay.node.whenClosed(LongRunningPermit.handOff(request));
    }

    /**
     * Both ends of one session: the client's (a JSR-356 endpoint) and the kubelet's. Once
     * the client's end is open, a thread reads the kubelet's messages and passes them on
     * (what the kubelet sent before waits in the connection until then); the client's are
     * passed on as they arrive. Either end closing closes the other.
     */
    public static final class Relay extends Endpoint {
        private final WebSocketConnection node;

        Relay(WebSocketConnection node) {
            this.node = node;
        }

        @Override
        public void onOpen(Session session, EndpointConfig config) {
            session.setMaxIdleTimeout(0);
            session.setMaxBinaryMessageBufferSize(1 << 20);
            session.setMaxTextMessageBufferSize(1 << 20);
            session.addMessageHandler(ByteBuffer.class, (MessageHandler.Whole<ByteBuffer>) data -> {
                byte[] bytes = new byte[data.remaining()];
                data.get(bytes);
                try {
                    node.sendBinary(bytes);
                } catch (IOException e) {
                    closeClient(session);
                }
            });
            session.addMessageHandler(String.class, (MessageHandler.Whole<String>) text -> {
                try {
                    node.sendText(text);
                } catch (IOException e) {
                    closeClient(session);
                }
            });
            Thread reader = new Thread(() -> {
                try {
                    WebSocketConnection.Message m;
                    while ((m = node.read()) != null) {
                        if (m.opcode() == WebSocketConnection.TEXT) {
                            session.getBasicRemote().sendText(new String(m.data(), StandardCharsets.UTF_8));
                        } else {
                            session.getBasicRemote().sendBinary(ByteBuffer.wrap(m.data()));
                        }
                    }
                } catch (IOException | IllegalStateException e) {
                    // either end went
                }
                closeClient(session);
            }, "kubelet-stream-relay");
            reader.setDaemon(true);
            reader.start();
        }

        private void closeClient(Session session) {
            node.close(1000, "");
            try {
                if (session.isOpen()) {
                    session.close(new CloseReason(CloseReason.CloseCodes.NORMAL_CLOSURE, ""));
                }
            } catch (IOException | IllegalStateException e) {
                // gone already
            }
        }

        @Override
        public void onClose(Session session, CloseReason reason) {
            node.close(1000, "");
        }

        @Override
        public void onError(Session session, Throwable error) {
            node.close(1000, "");
        }

        void closeNode() {
            node.close(1000, "");
        }
    }
}
