package io.cybernetes.apiserver.internal.fieldmanager;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Server-side apply as structured-merge-diff does it: the applied configuration is merged
 * into the live object over the kind's schema (structs and maps field by field, keyed
 * lists item by item, sets by value, atomic lists and scalars replaced); a field it changes
 * that another manager owns is a conflict (409, one cause per field) unless forced, which
 * takes the field over; the manager's Apply entry becomes exactly the applied fields; and
 * what it applied before and applies no more is removed, unless another manager owns it.
 */
public final class Apply {

    private Apply() {
    }

    /** The object after the apply, with its managedFields. */
    public record Result(ObjectNode object, ArrayNode managedFields) {
    }

    /**
     * Who applies, through which endpoint: {@code subresource} (null, {@code status},
     * {@code scale}) names the entry apart from the manager's others; {@code reset} holds the
     * top-level fields the endpoint resets (status through the main resource, all but status
     * through /status), which the applier neither owns nor conflicts over, as Kubernetes'
     * reset fields.
     */
    public record Applier(String manager, String subresource, java.util.Set<String> reset, boolean force,
                          String time) {
    }

    /**
     * Applies {@code applied} (already decoded) to {@code live} (null: the object is being
     * created from the applied configuration alone).
     */
    public static Result apply(ObjectNode live, ObjectNode applied, FieldType type, Applier who) {
        String manager = who.manager();
        String subresource = who.subresource();
        FieldSet reset = ManagedFields.topLevel(who.reset());
        FieldSet applySet = applyFields(ManagedFields.stripped(applied), type).recursiveDifference(reset);
        List<ManagedFields.Entry> entries = ManagedFields.entries(live == null ? null
                : live.path("metadata").get("managedFields"));
        ObjectNode merged = live == null ? applied.deepCopy() : (ObjectNode) merge(live.deepCopy(), applied, type);
        if (merged.get("metadata") instanceof ObjectNode meta) {
            meta.remove("managedFields");
        }
        ManagedFields.Comparison c = ManagedFields.compare(live == null ? null : ManagedFields.stripped(live),
                ManagedFields.stripped(merged), type);
        FieldSet changed = c.modified().union(c.added()).recursiveDifference(reset);
        // kubectl moving from client-side apply may take what its last client-side apply still holds
        FieldSet allowed = LastApplied.KUBECTL.equals(manager) && live != null
                ? LastApplied.stillAsApplied(live, type) : new FieldSet();
        List<StatusCause> conflicts = new ArrayList<>();
        List<ManagedFields.Entry> others = new ArrayList<>();
        ManagedFields.Entry previous = null;
        for (ManagedFields.Entry e : entries) {
            if (e.same(manager, "Apply", subresource)) {
                previous = e;
                continue;
            }
            FieldSet overlap = e.fields().intersection(changed);
            if (!who.force()) {
                for (String path : paths(overlap.difference(allowed))) {
                    conflicts.add(ApiException.cause(path, "FieldManagerConflict", "conflict with "
                            + io.cybernetes.api.GoStrings.quote(e.manager()) + (e.apiVersion() == null ? ""
                            : " using " + e.apiVersion())));
                }
            }
            others.add(e.withFields(e.fields().difference(overlap).difference(c.removed())));
        }
        if (!conflicts.isEmpty()) {
            throw conflict(conflicts);
        }
        // what this manager applied before, applies no more and nobody else owns goes
        FieldSet ownedByOthers = new FieldSet();
        others.forEach(e -> ownedByOthers.addAll(e.fields()));
        if (previous != null) {
            FieldSet dropped = previous.fields().difference(applySet).difference(ownedByOthers);
            remove(merged, dropped, applySet.union(ownedByOthers), type);
        }
        ArrayNode out = Json.MAPPER.createArrayNode();
        boolean written = false;
        for (ManagedFields.Entry e : entries) {
            if (e.same(manager, "Apply", subresource)) {
                if (!applySet.isEmpty()) {
                    out.add(new ManagedFields.Entry(manager, "Apply", Json.text(applied, "apiVersion"), who.time(),
                            subresource, applySet).toJson());
                }
                written = true;
            } else {
                others.stream().filter(o -> o.same(e.manager(), e.operation(), e.subresource())).findFirst()
                        .filter(o -> !o.fields().isEmpty()).ifPresent(o -> out.add(o.toJson()));
            }
        }
        if (!written && !applySet.isEmpty()) {
            out.add(new ManagedFields.Entry(manager, "Apply", Json.text(applied, "apiVersion"), who.time(), subresource,
                    applySet).toJson());
        }
        if (LastApplied.KUBECTL.equals(manager) && live != null) {
            LastApplied.follow(live, merged, applied);
        }
        return new Result(merged, out);
    }

    /** The fields an applied configuration sets: its leaves, its list items; a map is its entries. */
    static FieldSet applyFields(JsonNode applied, FieldType type) {
        FieldSet s = ManagedFields.fieldsOf(applied, type);
        dropMapPaths(s, applied, type);
        return s;
    }

    /** Maps own no path of their own in an applied configuration (they do when an update adds them). */
    private static void dropMapPaths(FieldSet s, JsonNode v, FieldType t) {
        if (v == null || !v.isObject()) {
            if (v != null && v.isArray() && t != null && t.kind() == FieldType.Kind.KEYED_LIST) {
                for (int i = 0; i < v.size(); i++) {
                    FieldSet c = s.children().get(ManagedFields.itemElement(v.get(i), t, i));
                    if (c != null) {
                        dropMapPaths(c, v.get(i), t.items());
                    }
                }
            }
            return;
        }
        FieldType.Kind kind = t == null ? FieldType.Kind.DEDUCED : t.kind();
        if ((kind == FieldType.Kind.MAP || kind == FieldType.Kind.DEDUCED) && !v.isEmpty()) {
            s.clearMember();
        }
        for (Map.Entry<String, JsonNode> e : v.properties()) {
            FieldSet c = s.children().get("f:" + e.getKey());
            if (c != null) {
                FieldType ct = t == null ? FieldType.DEDUCED : t.field(e.getKey());
                dropMapPaths(c, e.getValue(), ct);
                if (kind != FieldType.Kind.STRUCT && e.getValue().isObject() && !e.getValue().isEmpty()) {
                    c.clearMember();
                }
            }
        }
    }

    /** The applied configuration merged into the live value. */
    static JsonNode merge(JsonNode live, JsonNode applied, FieldType t) {
        if (live == null || applied == null || applied.isNull()) {
            return applied == null ? live : applied.deepCopy();
        }
        FieldType.Kind kind = t == null ? FieldType.Kind.DEDUCED : t.kind();
        switch (kind) {
            case STRUCT, MAP, DEDUCED -> {
                if (!(live instanceof ObjectNode l) || !applied.isObject()) {
                    return applied.deepCopy();
                }
                for (Map.Entry<String, JsonNode> e : applied.properties()) {
                    FieldType ct = t == null ? FieldType.DEDUCED : t.field(e.getKey());
                    l.set(e.getKey(), merge(l.get(e.getKey()), e.getValue(), ct));
                }
                return l;
            }
            case KEYED_LIST -> {
                if (!(live instanceof ArrayNode l) || !applied.isArray()) {
                    return applied.deepCopy();
                }
                Map<String, Integer> at = new TreeMap<>();
                for (int i = 0; i < l.size(); i++) {
                    at.put(ManagedFields.itemElement(l.get(i), t, i), i);
                }
                for (int i = 0; i < applied.size(); i++) {
                    JsonNode item = applied.get(i);
                    Integer existing = at.get(ManagedFields.itemElement(item, t, -1));
                    if (existing != null) {
                        l.set(existing, merge(l.get(existing), item, t.items()));
                    } else {
                        l.add(item.deepCopy());
                    }
                }
                return l;
            }
            case SET -> {
                if (!(live instanceof ArrayNode l) || !applied.isArray()) {
                    return applied.deepCopy();
                }
                for (JsonNode item : applied) {
                    boolean present = false;
                    for (JsonNode x : l) {
                        present |= x.equals(item);
                    }
                    if (!present) {
                        l.add(item.deepCopy());
                    }
                }
                return l;
            }
            default -> {
                return applied.deepCopy();
            }
        }
    }

    /**
     * Removes the paths of the set from the value; a path with something below it still owned
     * ({@code kept}) stays, and only what below it nobody owns goes.
     */
    static void remove(JsonNode v, FieldSet paths, FieldSet kept, FieldType t) {
        if (v == null) {
            return;
        }
        for (Map.Entry<String, FieldSet> e : new ArrayList<>(paths.children().entrySet())) {
            String el = e.getKey();
            FieldSet below = e.getValue();
            FieldSet keptBelow = kept == null ? null : kept.children().get(el);
            boolean whole = below.member() && (keptBelow == null || keptBelow.isEmpty());
            if (el.startsWith("f:") && v instanceof ObjectNode o) {
                String field = el.substring(2);
                if (whole) {
                    o.remove(field);
                } else {
                    remove(o.get(field), below, keptBelow, t == null ? FieldType.DEDUCED : t.field(field));
                }
            } else if ((el.startsWith("k:") || el.startsWith("v:")) && v instanceof ArrayNode a && t != null) {
                for (int i = a.size() - 1; i >= 0; i--) {
                    String key = el.startsWith("k:") ? ManagedFields.itemElement(a.get(i), t, i)
                            : "v:" + Json.write(a.get(i));
                    if (key.equals(el)) {
                        if (whole) {
                            a.remove(i);
                        } else {
                            remove(a.get(i), below, keptBelow, t.items());
                        }
                    }
                }
            }
        }
    }

    /** The paths of a set as structured-merge-diff prints them ({@code .spec.containers[name="a"].image}). */
    static List<String> paths(FieldSet s) {
        List<String> out = new ArrayList<>();
        paths(s, "", out);
        return out;
    }

    private static void paths(FieldSet s, String prefix, List<String> out) {
        if (s.member() && !prefix.isEmpty()) {
            out.add(prefix);
        }
        s.children().forEach((el, c) -> paths(c, prefix + printed(el), out));
    }

    private static String printed(String el) {
        String rest = el.substring(2);
        return switch (el.charAt(0)) {
            case 'f' -> "." + rest;
            case 'k' -> {
                JsonNode keys = Json.MAPPER.readTree(rest);
                List<String> parts = new ArrayList<>();
                keys.properties().forEach(k -> parts.add(k.getKey() + "=" + Json.write(k.getValue())));
                yield "[" + String.join(",", parts) + "]";
            }
            case 'v' -> "[=" + rest + "]";
            default -> "[" + rest + "]";
        };
    }

    /** 409 as kube-apiserver words an apply's conflicts. */
    private static ApiException conflict(List<StatusCause> causes) {
        String message;
        if (causes.size() == 1) {
            message = "Apply failed with 1 conflict: " + causes.get(0).getMessage() + ": " + causes.get(0).getField();
        } else {
            Map<String, List<String>> byManager = new TreeMap<>();
            causes.forEach(c -> byManager.computeIfAbsent(c.getMessage(), k -> new ArrayList<>()).add(c.getField()));
            List<String> lines = new ArrayList<>();
            byManager.forEach((who, fields) -> {
                lines.add(who.replaceFirst("^conflict with", "conflicts with") + ":");
                fields.forEach(f -> lines.add("- " + f));
            });
            message = "Apply failed with " + causes.size() + " conflicts: " + String.join("\n", lines);
        }
        return ApiException.applyConflict(message, causes);
    }
}
