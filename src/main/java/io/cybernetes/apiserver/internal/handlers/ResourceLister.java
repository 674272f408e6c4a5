package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.ResourceType;
import io.cybernetes.store.ListRequest;
import io.cybernetes.store.ListResult;
import io.cybernetes.store.StorageException;
import io.cybernetes.store.Store;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Lists with Kubernetes' semantics: resourceVersion and resourceVersionMatch, pages of
 * one snapshot behind continue tokens (410 once that snapshot is gone), and label and
 * field selectors applied before the limit counts.
 */
public final class ResourceLister {

    private final Store store;

    public ResourceLister(Store store) {
        this.store = store;
    }

    /** A list page and the continue token for the next one ("" when this is the last). */
    public record Page(ListResult result, String continueToken) {
    }

    public Page list(ResourceType type, String namespace, ListOptions opts) {
        String prefix = type.keyPrefix(namespace);
        Predicate<ObjectNode> filter = filter(opts);
        ListRequest.Match match;
        long revision = 0;
        String startAfter = null;
        ContinueToken token = null;
        if (opts.continueToken() != null && !opts.continueToken().isEmpty()) {
            if (opts.resourceVersion() != null && !opts.resourceVersion().isEmpty()) {
                throw ApiException.badRequest("specifying resource version is not allowed when using continue");
            }
            token = ContinueToken.decode(opts.continueToken());
            if (!token.startAfter().startsWith(prefix)) {
                throw ApiException.badRequest("continue key is not valid: it does not belong to this list");
            }
            match = ListRequest.Match.EXACT;
            revision = token.revision();
            startAfter = token.startAfter();
        } else {
            String rv = opts.resourceVersion();
            String rvMatch = opts.resourceVersionMatch();
            if (rv == null || rv.isEmpty()) {
                if (rvMatch != null && !rvMatch.isEmpty()) {
                    throw ApiException.badRequest("resourceVersionMatch is forbidden unless resourceVersion is provided");
                }
                match = ListRequest.Match.LATEST;
            } else {
                revision = ResourceService.parseRevision(rv);
                if (rvMatch == null || rvMatch.isEmpty()) {
                    match = revision == 0 ? ListRequest.Match.ANY
                            : opts.limit() > 0 ? ListRequest.Match.EXACT : ListRequest.Match.NOT_OLDER_THAN;
                } else if (rvMatch.equals("NotOlderThan")) {
                    match = revision == 0 ? ListRequest.Match.ANY : ListRequest.Match.NOT_OLDER_THAN;
                } else if (rvMatch.equals("Exact")) {
                    if (revision == 0) {
                        throw ApiException.badRequest("resourceVersionMatch \"Exact\" is forbidden for resourceVersion \"0\"");
                    }
                    match = ListRequest.Match.EXACT;
                } else {
                    throw ApiException.badRequest("unsupported resourceVersionMatch \"" + rvMatch
                            + "\": supported values are \"Exact\" and \"NotOlderThan\"");
                }
            }
        }
        try {
            // Only the first page of an unfiltered list counts what follows it; the token carries the count on.
            boolean counted = filter == null && token != null && token.knowsTotal();
            ListResult result = store.list(new ListRequest(prefix, match, revision, filter, startAfter, opts.limit(),
                    !counted));
            long served = (counted ? token.served() : 0) + result.items().size();
            if (counted && result.lastKey() != null) {
                result = new ListResult(result.items(), result.revision(), result.lastKey(),
                        Math.max(0, token.total() - served));
            }
            long total = counted ? token.total()
                    : result.remaining() == null ? -1 : served + result.remaining();
            String next = result.lastKey() == null ? ""
                    : new ContinueToken(result.revision(), result.lastKey(), total < 0 ? -1 : served, total).encode();
            return new Page(result, next);
        } catch (StorageException e) {
            if (e.isExpired() && startAfter != null) {
                throw ApiException.gone("The provided continue parameter is too old to display a consistent list"
                        + " result. You can start a new list without the continue parameter.");
            }
            throw ResourceService.translate(e, type, "");
        }
    }

    public static Predicate<ObjectNode> filter(ListOptions opts) {
        if (opts.labels().isEmpty() && opts.fields().isEmpty()) {
            return null;
        }
        return obj -> opts.fields().matches(obj) && opts.labels().matches(labels(obj));
    }

    public static Map<String, String> labels(JsonNode obj) {
        JsonNode l = obj.path("metadata").path("labels");
        if (!l.isObject() || l.isEmpty()) {
            return Map.of();
        }
        Map<String, String> out = new HashMap<>();
        for (Map.Entry<String, JsonNode> e : l.properties()) {
            out.put(e.getKey(), e.getValue().asString());
        }
        return out;
    }
}
