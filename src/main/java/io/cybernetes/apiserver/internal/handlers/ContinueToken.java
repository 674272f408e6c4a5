package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** The opaque continue token of a paged list: the snapshot revision and the last key served. */
public record ContinueToken(long revision, String startAfter) {

    public String encode() {
        ObjectNode o = Json.object();
        o.put("v", "meta.k8s.io/v1");
        o.put("rv", revision);
        o.put("start", startAfter);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(Json.write(o).getBytes(StandardCharsets.UTF_8));
    }

    public static ContinueToken decode(String token) {
        try {
            ObjectNode o = Json.parseStored(new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8));
            long rv = o.path("rv").asLong(0);
            String start = o.path("start").asString("");
            if (rv <= 0 || start.isEmpty() || !"meta.k8s.io/v1".equals(o.path("v").asString(""))) {
                throw new IllegalArgumentException();
            }
            return new ContinueToken(rv, start);
        } catch (RuntimeException e) {
            throw ApiException.badRequest("continue key is not valid: " + token);
        }
    }
}
