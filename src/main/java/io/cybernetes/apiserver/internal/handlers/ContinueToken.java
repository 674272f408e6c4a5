package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import tools.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The opaque continue token of a paged list: the snapshot revision and the last key
 * served, and, for an unfiltered list, how many items the pages so far held and how many
 * the snapshot has in all (so no later page counts them again: -1 when not known).
 */
public record ContinueToken(long revision, String startAfter, long served, long total) {

    public ContinueToken(long revision, String startAfter) {
        this(revision, startAfter, -1, -1);
    }

    /** Whether the items after a page follow from this token without counting them. */
    public boolean knowsTotal() {
        return served >= 0 && total >= 0;
    }

    public String encode() {
        ObjectNode o = Json.object();
        o.put("v", "meta.k8s.io/v1");
        o.put("rv", revision);
        o.put("start", startAfter);
        if (knowsTotal()) {
            o.put("n", served);
            o.put("t", total);
        }
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
            return new ContinueToken(rv, start, o.path("n").asLong(-1), o.path("t").asLong(-1));
        } catch (RuntimeException e) {
            throw ApiException.badRequest("continue key is not valid: " + token);
        }
    }
}
