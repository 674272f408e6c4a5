package io.cybernetes.apiserver.internal.handlers;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.websocket.CloseReason;
import jakarta.websocket.DeploymentException;
import jakarta.websocket.Endpoint;
import jakarta.websocket.EndpointConfig;
import jakarta.websocket.Session;
import jakarta.websocket.server.ServerContainer;
import jakarta.websocket.server.ServerEndpointConfig;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * A watch asked for over WebSocket, as kube-apiserver serves one (and as fabric8's client
 * asks for its watches first): the request is upgraded once the watch is open, and each
 * event is then one text message holding the event's JSON; what the client sends is
 * ignored, and its close, or the connection's end, ends the watch. The stream runs in
 * turns as an HTTP watch does, and ends with a normal close.
 */
public final class WebSocketWatch extends Endpoint {

    /** How long an upgraded request may take to become an open WebSocket. */
    private static final long HANDSHAKE_MILLIS = 30_000;

    private final WatchStreamer.Opened opened;

    private WebSocketWatch(WatchStreamer.Opened opened) {
        this.opened = opened;
    }

    /** Whether the request asks for its response as a WebSocket ({@code Upgrade: websocket} on a GET). */
    public static boolean isUpgrade(HttpServletRequest request) {
        String connection = request.getHeader("Connection");
        return "GET".equals(request.getMethod()) && "websocket".equalsIgnoreCase(request.getHeader("Upgrade"))
                && connection != null && connection.toLowerCase(Locale.ROOT).contains("upgrade");
    }

    /**
     * Upgrades the request to a WebSocket that streams the opened watch. The watch is
     * closed when the upgrade cannot be made (the container then answers the handshake
     * error itself) or the WebSocket does not open in time.
     */
    public static void upgrade(HttpServletRequest request, HttpServletResponse response, WatchStreamer.Opened opened) {
        Object container = request.getServletContext().getAttribute(ServerContainer.class.getName());
        if (!(container instanceof ServerContainer server)) {
            opened.close();
            throw new IllegalStateException("the servlet container serves no WebSockets");
        }
        ServerEndpointConfig config = ServerEndpointConfig.Builder.create(WebSocketWatch.class, request.getRequestURI())
                .configurator(new ServerEndpointConfig.Configurator() {
                    @Override
                    @SuppressWarnings("unchecked")
                    public <T> T getEndpointInstance(Class<T> type) {
                        return (T) new WebSocketWatch(opened);
                    }
                }).build();
        try {
            server.upgradeHttpToWebSocket(request, response, config, Map.of());
        } catch (IOException | DeploymentException | RuntimeException e) {
            opened.close();
            return;
        }
        if (response.getStatus() != 101) {
            // the container refused the handshake (a bad key or version) and answered it
            opened.close();
            return;
        }
        // streams once the handshake completes; a connection that drops before never does
        opened.expireUnlessStarted(HANDSHAKE_MILLIS);
    }

    @Override
    public void onOpen(Session session, EndpointConfig config) {
        session.setMaxIdleTimeout(0);
        opened.start(new Sink(session));
    }

    @Override
    public void onClose(Session session, CloseReason reason) {
        opened.close();
    }

    @Override
    public void onError(Session session, Throwable error) {
        opened.close();
    }

    /** The session, as a watch writes to it: every write is one event, sent as one text message. */
    private record Sink(Session session) implements WatchStreamer.Sink {

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void write(byte[] event) throws IOException {
            session.getBasicRemote().sendText(new String(event, StandardCharsets.UTF_8));
        }

        @Override
        public void flush() {
            // every message is sent whole
        }

        @Override
        public void end() {
            try {
                if (session.isOpen()) {
                    session.close(new CloseReason(CloseReason.CloseCodes.NORMAL_CLOSURE, ""));
                }
            } catch (IOException | IllegalStateException e) {
                // the client went away first
            }
        }
    }
}
