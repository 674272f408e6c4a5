package io.cybernetes.node;

import io.cybernetes.api.WebSocketConnection;

import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The server's side of a WebSocket handshake on a kubelet connection, with the subprotocol chosen from the client's. */
final class WebSocket {

    private WebSocket() {
    }

    /** Whether the request asks to become a WebSocket. */
    static boolean requested(KubeletServer.Request r) {
        return "websocket".equalsIgnoreCase(r.headers().get("upgrade"))
                && r.headers().getOrDefault("connection", "").toLowerCase(Locale.ROOT).contains("upgrade");
    }

    /**
     * Completes the handshake with the first of {@code supported} the client offers (the last
     * of them when it offers none); answers 400 and returns null when it is no WebSocket
     * request or offers none of them.
     */
    static WebSocketConnection accept(KubeletServer.Request r, KubeletServer.Response response, List<String> supported)
            throws IOException {
        String key = r.headers().get("sec-websocket-key");
        if (!requested(r) || key == null || !"13".equals(r.headers().get("sec-websocket-version"))) {
            response.text(400, "Bad Request: not a WebSocket version 13 handshake");
            return null;
        }
        String offered = r.headers().getOrDefault("sec-websocket-protocol", "");
        boolean none = offered.isBlank();
        String chosen = none ? supported.get(supported.size() - 1) : null; // none offered: the plainest, unsaid
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
        h.put("Sec-WebSocket-Accept", WebSocketConnection.acceptKey(key));
        if (!none) {
            h.put("Sec-WebSocket-Protocol", chosen);
        }
        OutputStream raw = response.head(101, "Switching Protocols", h);
        return new WebSocketConnection(r.body(), raw, chosen, false, null);
    }
}
