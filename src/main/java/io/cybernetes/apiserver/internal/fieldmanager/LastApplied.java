package io.cybernetes.apiserver.internal.fieldmanager;

import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What Kubernetes does for objects client-side {@code kubectl apply} made, when
 * {@code kubectl apply --server-side} (manager {@code kubectl}) takes them on: fields its
 * last client-side apply set (the {@value #ANNOTATION} annotation) and the object still
 * holds as set are no conflict; and the annotation, where there is one, follows each apply,
 * so a later client-side apply starts from what was applied last.
 */
final class LastApplied {

    static final String KUBECTL = "kubectl";
    static final String ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration";

    private LastApplied() {
    }

    /**
     * The fields of the last client-side apply that the live object still has with the values
     * it set (none without the annotation, or with one of another API version or unreadable).
     */
    static FieldSet stillAsApplied(ObjectNode live, FieldType type) {
        String text = annotation(live);
        if (text == null) {
            return new FieldSet();
        }
        ObjectNode last;
        try {
            last = (ObjectNode) Json.MAPPER.readTree(text);
        } catch (RuntimeException e) {
            return new FieldSet();
        }
        if (last == null || !java.util.Objects.equals(Json.text(last, "apiVersion"), Json.text(live, "apiVersion"))) {
            return new FieldSet();
        }
        ObjectNode lastStripped = ManagedFields.stripped(last);
        ManagedFields.Comparison c = ManagedFields.compare(lastStripped, ManagedFields.stripped(live), type);
        return Apply.applyFields(lastStripped, type).difference(c.modified()).difference(c.added())
                .difference(c.removed());
    }

    /** Sets the annotation, if the live object has one, to the applied configuration (without it). */
    static void follow(ObjectNode live, ObjectNode merged, ObjectNode applied) {
        if (annotation(live) == null) {
            return;
        }
        ObjectNode config = applied.deepCopy();
        if (config.path("metadata").get("annotations") instanceof ObjectNode a) {
            a.remove(ANNOTATION);
        }
        Json.child(Json.child(merged, "metadata"), "annotations").put(ANNOTATION, Json.write(sorted(config)) + "\n");
    }

    private static String annotation(ObjectNode obj) {
        JsonNode text = obj.path("metadata").path("annotations").get(ANNOTATION);
        return text == null || !text.isString() || text.asString().isEmpty() ? null : text.asString();
    }

    /** The value with its keys in order, as Go writes a map. */
    private static JsonNode sorted(JsonNode v) {
        if (v.isObject()) {
            List<Map.Entry<String, JsonNode>> fields = new ArrayList<>(v.properties());
            fields.sort(Map.Entry.comparingByKey());
            ObjectNode o = Json.object();
            fields.forEach(f -> o.set(f.getKey(), sorted(f.getValue())));
            return o;
        }
        if (v.isArray()) {
            tools.jackson.databind.node.ArrayNode a = Json.MAPPER.createArrayNode();
            v.forEach(x -> a.add(sorted(x)));
            return a;
        }
        return v;
    }
}
