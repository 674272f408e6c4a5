package io.cybernetes.apiserver.internal.fieldmanager;

import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * {@code metadata.managedFields} as Kubernetes' field manager keeps them on an update: the
 * change is compared field by field over the kind's schema (added, modified, removed
 * paths); the writing manager (its name, operation {@code Update} and subresource) comes to
 * own what it added and modified, every other manager loses what the write took over or
 * removed, and a manager left with nothing loses its entry. Entries are merged by manager,
 * operation and subresource. The server's own fields (kind, apiVersion, name, namespace,
 * uid, resourceVersion, timestamps, generation, managedFields) belong to nobody.
 */
public final class ManagedFields {

    /** A manager longer than this is refused, as Kubernetes refuses it. */
    public static final int MAX_MANAGER_LENGTH = 128;

    private static final List<String> SERVER_METADATA = List.of("name", "namespace", "uid", "resourceVersion",
            "creationTimestamp", "generation", "managedFields", "selfLink");

    private ManagedFields() {
    }

    /** What a write changed: paths added, modified (same path, another value) and removed. */
    public record Comparison(FieldSet added, FieldSet modified, FieldSet removed) {
        public boolean isSame() {
            return added.isEmpty() && modified.isEmpty() && removed.isEmpty();
        }
    }

    /** One entry of managedFields. */
    record Entry(String manager, String operation, String apiVersion, String time, String subresource,
                 FieldSet fields) {

        Entry withFields(FieldSet f) {
            return new Entry(manager, operation, apiVersion, time, subresource, f);
        }


        boolean same(String m, String op, String sub) {
            return manager.equals(m) && operation.equals(op) && Objects.equals(subresource, sub);
        }

        ObjectNode toJson() {
            ObjectNode o = Json.object();
            o.put("manager", manager);
            o.put("operation", operation);
            o.put("apiVersion", apiVersion);
            if (time != null) {
                o.put("time", time);
            }
            o.put("fieldsType", "FieldsV1");
            o.set("fieldsV1", fields.toFieldsV1());
            if (subresource != null) {
                o.put("subresource", subresource);
            }
            return o;
        }
    }

    /**
     * The managedFields after an update by {@code manager} ({@code old} null for a create),
     * to be set on {@code now}, starting from the entries {@code now} carries. {@code ignored}:
     * the top-level fields the write may not set (status through the main resource, all
     * but status through the status subresource), which the writer never comes to own.
     */
    public static ArrayNode update(ObjectNode old, ObjectNode now, FieldType type, String manager, String subresource,
                                   String time, Set<String> ignored) {
        // the entries the write starts from: on an update the live ones, or those the client sent in their place
        List<Entry> entries = entries(now.path("metadata").get("managedFields"));
        Comparison c = compare(old == null ? null : stripped(old), stripped(now), type);
        if (!c.isSame()) {
            FieldSet taken = c.modified().union(c.added());
            FieldSet reset = topLevel(ignored);
            List<Entry> next = new ArrayList<>();
            boolean found = false;
            for (Entry e : entries) {
                if (e.same(manager, "Update", subresource)) {
                    found = true;
                    next.add(new Entry(manager, "Update", Json.text(now, "apiVersion"), time, subresource,
                            e.fields().union(taken).difference(c.removed()).recursiveDifference(reset)));
                } else {
                    next.add(new Entry(e.manager(), e.operation(), e.apiVersion(), e.time(), e.subresource(),
                            e.fields().difference(taken).difference(c.removed())));
                }
            }
            if (!found) {
                next.add(new Entry(manager, "Update", Json.text(now, "apiVersion"), time, subresource,
                        taken.difference(c.removed()).recursiveDifference(reset)));
            }
            entries = next;
        }
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (Entry e : entries) {
            if (!e.fields().isEmpty()) {
                out.add(e.toJson());
            }
        }
        return out;
    }

    /** The set of the top-level fields named (with all below them). */
    static FieldSet topLevel(Set<String> fields) {
        FieldSet s = new FieldSet();
        fields.forEach(f -> s.child("f:" + f).insert());
        return s;
    }

    static List<Entry> entries(JsonNode managedFields) {
        List<Entry> out = new ArrayList<>();
        if (managedFields == null || !managedFields.isArray()) {
            return out;
        }
        for (JsonNode e : managedFields) {
            String manager = Json.text(e, "manager");
            if (manager == null) {
                continue;
            }
            out.add(new Entry(manager, Objects.requireNonNullElse(Json.text(e, "operation"), "Update"),
                    Json.text(e, "apiVersion"), Json.text(e, "time"), Json.text(e, "subresource"),
                    FieldSet.fromFieldsV1(e.get("fieldsV1"))));
        }
        return out;
    }

    /** The object without the fields that belong to the server. */
    static ObjectNode stripped(ObjectNode obj) {
        ObjectNode copy = obj.deepCopy();
        copy.remove(List.of("apiVersion", "kind"));
        if (copy.get("metadata") instanceof ObjectNode meta) {
            meta.remove(SERVER_METADATA);
            if (meta.isEmpty()) {
                copy.remove("metadata");
            }
        }
        return copy;
    }

    /** The paths of a value, as a manager that wrote all of it would own them. */
    public static FieldSet fieldsOf(JsonNode value, FieldType type) {
        FieldSet s = new FieldSet();
        fields(value, type, s);
        s.clearMember(); // the object itself is nobody's field
        return s;
    }

    /** Compares two versions of an object (null: none) over the type. */
    public static Comparison compare(JsonNode old, JsonNode now, FieldType type) {
        FieldSet added = new FieldSet();
        FieldSet modified = new FieldSet();
        FieldSet removed = new FieldSet();
        compare(old, now, type, added, modified, removed);
        added.clearMember();
        modified.clearMember();
        removed.clearMember();
        return new Comparison(added, modified, removed);
    }

    private static void fields(JsonNode v, FieldType t, FieldSet at) {
        FieldType.Kind kind = t == null ? FieldType.Kind.DEDUCED : t.kind();
        if (v == null || v.isNull()) {
            at.insert();
            return;
        }
        switch (kind) {
            case STRUCT -> {
                if (!v.isObject() || v.isEmpty()) {
                    at.insert();
                    return;
                }
                for (Map.Entry<String, JsonNode> e : v.properties()) {
                    FieldType ct = t.field(e.getKey());
                    FieldSet c = at.child("f:" + e.getKey());
                    fields(e.getValue(), ct, c);
                    if (ct == null) {
                        c.insert();
                    }
                }
            }
            case MAP, DEDUCED -> {
                if (!v.isObject()) {
                    at.insert();
                    return;
                }
                at.insert();
                for (Map.Entry<String, JsonNode> e : v.properties()) {
                    FieldSet c = at.child("f:" + e.getKey());
                    fields(e.getValue(), t == null ? FieldType.DEDUCED : t.field(e.getKey()), c);
                    c.insert();
                }
            }
            case SET -> {
                if (!v.isArray()) {
                    at.insert();
                    return;
                }
                for (JsonNode item : v) {
                    at.child("v:" + Json.write(item)).insert();
                }
            }
            case KEYED_LIST -> {
                if (!v.isArray()) {
                    at.insert();
                    return;
                }
                for (int i = 0; i < v.size(); i++) {
                    FieldSet c = at.child(itemElement(v.get(i), t, i));
                    c.insert();
                    fields(v.get(i), t.items(), c);
                }
            }
            default -> at.insert();
        }
    }

    private static void compare(JsonNode a, JsonNode b, FieldType t, FieldSet added, FieldSet modified,
                                FieldSet removed) {
        if (a == null && b == null) {
            return;
        }
        if (a == null) {
            fields(b, t, added);
            return;
        }
        if (b == null) {
            fields(a, t, removed);
            return;
        }
        FieldType.Kind kind = t == null ? FieldType.Kind.DEDUCED : t.kind();
        switch (kind) {
            case STRUCT, MAP, DEDUCED -> {
                if (!a.isObject() || !b.isObject()) {
                    if (!a.equals(b)) {
                        modified.insert();
                    }
                    return;
                }
                if (kind == FieldType.Kind.STRUCT && a.isEmpty() != b.isEmpty()) {
                    // an empty struct is a path of its own; one with fields is its fields
                    (a.isEmpty() ? removed : added).insert();
                }
                Set<String> keys = new LinkedHashSet<>();
                a.properties().forEach(e -> keys.add(e.getKey()));
                b.properties().forEach(e -> keys.add(e.getKey()));
                for (String k : keys) {
                    FieldType ct = t == null ? FieldType.DEDUCED : t.field(k);
                    String e = "f:" + k;
                    JsonNode av = a.get(k);
                    JsonNode bv = b.get(k);
                    boolean entry = kind != FieldType.Kind.STRUCT || ct == null;
                    if (entry && (av == null) != (bv == null)) {
                        // a map entry (or an undeclared field) come or gone is itself a path
                        (av == null ? added : removed).child(e).insert();
                    }
                    compare(av, bv, ct, added.child(e), modified.child(e), removed.child(e));
                }
            }
            case SET -> {
                if (!a.isArray() || !b.isArray()) {
                    if (!a.equals(b)) {
                        modified.insert();
                    }
                    return;
                }
                Set<String> before = new LinkedHashSet<>();
                a.forEach(x -> before.add("v:" + Json.write(x)));
                Set<String> after = new LinkedHashSet<>();
                b.forEach(x -> after.add("v:" + Json.write(x)));
                after.stream().filter(x -> !before.contains(x)).forEach(x -> added.child(x).insert());
                before.stream().filter(x -> !after.contains(x)).forEach(x -> removed.child(x).insert());
            }
            case KEYED_LIST -> {
                if (!a.isArray() || !b.isArray()) {
                    if (!a.equals(b)) {
                        modified.insert();
                    }
                    return;
                }
                Map<String, JsonNode> before = items(a, t);
                Map<String, JsonNode> after = items(b, t);
                Set<String> keys = new LinkedHashSet<>(before.keySet());
                keys.addAll(after.keySet());
                for (String k : keys) {
                    JsonNode av = before.get(k);
                    JsonNode bv = after.get(k);
                    if (av == null) {
                        added.child(k).insert();
                    } else if (bv == null) {
                        removed.child(k).insert();
                    }
                    compare(av, bv, t.items(), added.child(k), modified.child(k), removed.child(k));
                }
            }
            default -> {
                if (!a.equals(b)) {
                    modified.insert();
                }
            }
        }
    }

    private static Map<String, JsonNode> items(JsonNode list, FieldType listType) {
        Map<String, JsonNode> out = new java.util.LinkedHashMap<>();
        for (int i = 0; i < list.size(); i++) {
            out.put(itemElement(list.get(i), listType, i), list.get(i));
        }
        return out;
    }

    /**
     * A keyed list item's path element: {@code k:{"name":"c"}} (keys sorted; a key the item
     * leaves out at the value its schema defaults it to, as {@code protocol: TCP} of a
     * container port), or its index when it has no keys.
     */
    static String itemElement(JsonNode item, FieldType listType, int index) {
        ObjectNode k = Json.object();
        FieldType itemType = listType.items();
        for (String key : listType.keys().stream().sorted().toList()) {
            JsonNode v = item.get(key);
            if (v == null || v.isNull()) {
                FieldType keyType = itemType == null ? null : itemType.field(key);
                v = keyType == null ? null : keyType.defaultValue();
            }
            if (v != null && !v.isNull()) {
                k.set(key, v);
            }
        }
        return k.isEmpty() ? "i:" + index : "k:" + Json.write(k);
    }
}
