package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.CompactNodeFactory;
import io.cybernetes.api.JsonPatch;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The three patch formats of the Kubernetes API: JSON merge patch (RFC 7386), JSON
 * patch (RFC 6902, in {@link JsonPatch}) and strategic merge patch, which merges lists by their merge keys
 * and understands the {@code $patch}, {@code $retainKeys}, {@code $setElementOrder}
 * and {@code $deleteFromPrimitiveList} directives.
 */
public final class Patches {

    /**
     * Lists merged by a key field instead of being replaced (patchMergeKey in Kubernetes' types), wherever
     * a list of that name is; {@link #mergeKey} decides for the names whose lists differ by where they are.
     */
    private static final Map<String, String> MERGE_KEYS = Map.ofEntries(
            Map.entry("containers", "name"),
            Map.entry("initContainers", "name"),
            Map.entry("ephemeralContainers", "name"),
            Map.entry("env", "name"),
            Map.entry("volumes", "name"),
            Map.entry("volumeMounts", "mountPath"),
            Map.entry("volumeDevices", "devicePath"),
            Map.entry("hostAliases", "ip"),
            Map.entry("conditions", "type"),
            Map.entry("ownerReferences", "uid"),
            Map.entry("topologySpreadConstraints", "topologyKey"),
            Map.entry("resourceClaims", "name"),
            Map.entry("addresses", "type"),
            Map.entry("schedulingGates", "name"),
            Map.entry("secrets", "name"),
            Map.entry("podIPs", "ip"),
            Map.entry("hostIPs", "ip"),
            Map.entry("webhooks", "name"),
            Map.entry("matchConditions", "name"),
            Map.entry("drivers", "name"),
            Map.entry("resourceClaimStatuses", "name"),
            Map.entry("reservedFor", "uid"));

    private static final Set<String> CONTAINER_LISTS = Set.of("containers", "initContainers", "ephemeralContainers");

    /**
     * Lists of scalars merged as sets (patchStrategy=merge without a key): an object's finalizers (those of
     * a Namespace's spec are replaced whole) and a node's podCIDRs.
     */
    private static boolean mergedAsSet(String holder, String field) {
        return field.equals("finalizers") ? holder.equals("metadata") : field.equals("podCIDRs");
    }

    /**
     * The key by which the list {@code field} of a map held under {@code holder} (the field the map is in,
     * "" for the object itself) is merged; null when the list is replaced whole. A container's ports merge by
     * containerPort and a Service's (under spec) by port, while a NetworkPolicy's or an EndpointSlice's are
     * replaced; a pod spec's imagePullSecrets merge by name, while a ServiceAccount's are replaced.
     */
    private static String mergeKey(String holder, String field) {
        return switch (field) {
            case "ports" -> CONTAINER_LISTS.contains(holder) ? "containerPort" : holder.equals("spec") ? "port" : null;
            case "imagePullSecrets" -> holder.equals("spec") ? "name" : null;
            default -> MERGE_KEYS.get(field);
        };
    }

    private static final String SET_ORDER = "$setElementOrder/";
    private static final String DELETE_FROM = "$deleteFromPrimitiveList/";

    private Patches() {
    }

    // ---- RFC 7386

    public static JsonNode mergePatch(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch.deepCopy();
        }
        ObjectNode result = target != null && target.isObject() ? (ObjectNode) target.deepCopy()
                : CompactNodeFactory.INSTANCE.objectNode();
        for (Map.Entry<String, JsonNode> e : patch.properties()) {
            if (e.getValue().isNull()) {
                result.remove(e.getKey());
            } else {
                result.set(e.getKey(), mergePatch(result.get(e.getKey()), e.getValue()));
            }
        }
        return result;
    }

    // ---- strategic merge patch

    public static ObjectNode strategicMerge(ObjectNode original, ObjectNode patch) {
        JsonNode merged = mergeMap(original.deepCopy(), patch, "");
        if (merged == null || !merged.isObject()) {
            throw ApiException.badRequest("a strategic merge patch cannot delete or replace the whole object");
        }
        return (ObjectNode) merged;
    }

    /**
     * Merges {@code patch} into {@code original} (modified in place), a map held under the field
     * {@code holder}; null means the map is deleted.
     */
    private static JsonNode mergeMap(ObjectNode original, ObjectNode patch, String holder) {
        JsonNode directive = patch.get("$patch");
        if (directive != null) {
            String d = directive.asString();
            if (d.equals("delete")) {
                return null;
            }
            if (d.equals("replace")) {
                ObjectNode copy = patch.deepCopy();
                copy.remove("$patch");
                return copy;
            }
            if (!d.equals("merge")) {
                throw ApiException.badRequest("unknown patch type: " + d + " in map");
            }
        }
        JsonNode retain = patch.get("$retainKeys");
        if (retain != null) {
            if (!retain.isArray()) {
                throw ApiException.badRequest("$retainKeys must be a list of strings");
            }
            Set<String> keep = new LinkedHashSet<>();
            retain.forEach(n -> keep.add(n.asString()));
            original.properties().removeIf(e -> !keep.contains(e.getKey()));
        }
        for (Map.Entry<String, JsonNode> e : patch.properties()) {
            String key = e.getKey();
            JsonNode value = e.getValue();
            if (key.equals("$patch") || key.equals("$retainKeys") || key.startsWith(SET_ORDER)) {
                continue;
            }
            if (key.startsWith(DELETE_FROM)) {
                String field = key.substring(DELETE_FROM.length());
                JsonNode list = original.get(field);
                if (list != null && list.isArray() && value.isArray()) {
                    Set<String> gone = new LinkedHashSet<>();
                    value.forEach(v -> gone.add(v.toString()));
                    ArrayNode kept = CompactNodeFactory.INSTANCE.arrayNode();
                    list.forEach(v -> {
                        if (!gone.contains(v.toString())) {
                            kept.add(v);
                        }
                    });
                    original.set(field, kept);
                }
                continue;
            }
            if (value.isNull()) {
                original.remove(key);
                continue;
            }
            JsonNode current = original.get(key);
            if (value.isObject()) {
                ObjectNode base = current != null && current.isObject() ? (ObjectNode) current
                        : CompactNodeFactory.INSTANCE.objectNode();
                JsonNode merged = mergeMap(base, (ObjectNode) value, key);
                if (merged == null) {
                    original.remove(key);
                } else {
                    original.set(key, merged);
                }
            } else if (value.isArray()) {
                original.set(key, mergeList(holder, key, current, (ArrayNode) value));
            } else {
                original.set(key, value.deepCopy());
            }
        }
        for (Map.Entry<String, JsonNode> e : patch.properties()) {
            if (e.getKey().startsWith(SET_ORDER)) {
                String field = e.getKey().substring(SET_ORDER.length());
                JsonNode list = original.get(field);
                if (list != null && list.isArray() && e.getValue().isArray()) {
                    original.set(field, reorder(mergeKey(holder, field), (ArrayNode) list, (ArrayNode) e.getValue()));
                }
            }
        }
        return original;
    }

    private static ArrayNode mergeList(String holder, String field, JsonNode current, ArrayNode patch) {
        String mergeKey = mergeKey(holder, field);
        boolean objects = patch.size() > 0 && patch.get(0).isObject();
        if (mergedAsSet(holder, field) && !objects) {
            ArrayNode out = current != null && current.isArray() ? (ArrayNode) current.deepCopy()
                    : CompactNodeFactory.INSTANCE.arrayNode();
            Set<String> seen = new LinkedHashSet<>();
            out.forEach(v -> seen.add(v.toString()));
            patch.forEach(v -> {
                if (seen.add(v.toString())) {
                    out.add(v);
                }
            });
            return out;
        }
        if (mergeKey == null || !objects) {
            ArrayNode out = CompactNodeFactory.INSTANCE.arrayNode();
            for (JsonNode item : patch) {
                if (item.isObject() && item.has("$patch") && "replace".equals(item.get("$patch").asString())) {
                    continue;
                }
                out.add(item.deepCopy());
            }
            return out;
        }
        // A {$patch: replace} element means: the list becomes exactly the other patch elements.
        for (JsonNode item : patch) {
            if (item.isObject() && "replace".equals(item.path("$patch").asString(""))) {
                ArrayNode out = CompactNodeFactory.INSTANCE.arrayNode();
                for (JsonNode other : patch) {
                    if (other != item) {
                        out.add(other.deepCopy());
                    }
                }
                return out;
            }
        }
        List<JsonNode> result = new ArrayList<>();
        if (current != null && current.isArray()) {
            current.forEach(n -> result.add(n.deepCopy()));
        }
        for (JsonNode item : patch) {
            if (!item.isObject()) {
                throw ApiException.badRequest("the list " + field + " is merged by key " + mergeKey
                        + ": each patch element must be an object");
            }
            JsonNode keyValue = item.get(mergeKey);
            if (keyValue == null) {
                throw ApiException.badRequest("map: " + item + " does not contain declared merge key: " + mergeKey);
            }
            int idx = indexOf(result, mergeKey, keyValue);
            boolean delete = "delete".equals(item.path("$patch").asString(""));
            if (delete) {
                if (idx >= 0) {
                    result.remove(idx);
                }
            } else if (idx >= 0) {
                JsonNode merged = mergeMap((ObjectNode) result.get(idx), (ObjectNode) item, field);
                if (merged == null) {
                    result.remove(idx);
                } else {
                    result.set(idx, merged);
                }
            } else {
                JsonNode fresh = mergeMap(CompactNodeFactory.INSTANCE.objectNode(), (ObjectNode) item, field);
                if (fresh != null) {
                    result.add(fresh);
                }
            }
        }
        ArrayNode out = CompactNodeFactory.INSTANCE.arrayNode();
        result.forEach(out::add);
        return out;
    }

    private static int indexOf(List<JsonNode> items, String key, JsonNode value) {
        for (int i = 0; i < items.size(); i++) {
            JsonNode n = items.get(i);
            if (n.isObject() && value.equals(n.get(key))) {
                return i;
            }
        }
        return -1;
    }

    private static ArrayNode reorder(String mergeKey, ArrayNode list, ArrayNode order) {
        List<JsonNode> remaining = new ArrayList<>();
        list.forEach(remaining::add);
        ArrayNode out = CompactNodeFactory.INSTANCE.arrayNode();
        for (JsonNode o : order) {
            JsonNode want = mergeKey != null && o.isObject() ? o.get(mergeKey) : o;
            for (Iterator<JsonNode> it = remaining.iterator(); it.hasNext(); ) {
                JsonNode n = it.next();
                JsonNode have = mergeKey != null && n.isObject() ? n.get(mergeKey) : n;
                if (want != null && want.equals(have)) {
                    out.add(n);
                    it.remove();
                    break;
                }
            }
        }
        remaining.forEach(out::add);
        return out;
    }

    // ---- RFC 6902

    public static JsonNode jsonPatch(JsonNode target, JsonNode patch) {
        return JsonPatch.apply(target, patch);
    }
}
