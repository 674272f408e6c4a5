package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.ResourceType;
import io.cybernetes.apiserver.internal.fieldmanager.Apply;
import io.cybernetes.apiserver.internal.fieldmanager.FieldType;
import io.cybernetes.apiserver.internal.fieldmanager.ManagedFields;
import io.cybernetes.apiserver.internal.registry.StrictDecoder;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What the write path does about metadata.managedFields, as kube-apiserver's field manager
 * does on its handlers: the options checked (a manager too long, apply without one, keys an
 * applied YAML repeats), the entries a write starts from, the write recorded under its manager
 * and endpoint, and the applier described for {@link Apply}.
 */
final class FieldManagement {

    private FieldManagement() {
    }

    /** A fieldManager longer than Kubernetes allows is refused as it refuses it (422 on the options). */
    static void checkFieldManager(WriteOptions opts, String optionsKind) {
        String m = opts.fieldManager();
        if (m != null && m.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > ManagedFields.MAX_MANAGER_LENGTH) {
            throw ApiException.invalid("meta.k8s.io", optionsKind, "", List.of(ApiException.cause("fieldManager",
                    "FieldValueTooLong", "Too long: may not be more than " + ManagedFields.MAX_MANAGER_LENGTH
                            + " bytes")));
        }
    }

    /** Apply needs a manager to own what it applies (422 on the options without one, as Kubernetes answers). */
    static void requireApplyManager(WriteOptions opts) {
        if (opts.fieldManager() == null || opts.fieldManager().isEmpty()) {
            throw ApiException.invalid("meta.k8s.io", "PatchOptions", "", List.of(ApiException.cause("fieldManager",
                    "FieldValueRequired", "Required value: is required for apply patch")));
        }
    }

    /**
     * Keys an applied configuration repeats, as Kubernetes checks them in the YAML itself:
     * refused under fieldValidation=Strict, warnings under Warn (its words).
     */
    static List<String> repeatedKeys(byte[] body, WriteOptions opts) {
        if (opts.fieldValidation() == StrictDecoder.FieldValidation.IGNORE) {
            return List.of();
        }
        List<String> repeated = Json.repeatedYamlKeys(body);
        if (repeated.isEmpty()) {
            return List.of();
        }
        String problem = "error converting YAML to JSON: yaml: unmarshal errors:\n  " + String.join("\n  ", repeated);
        if (opts.fieldValidation() == StrictDecoder.FieldValidation.STRICT) {
            throw ApiException.badRequest("error strict decoding YAML: " + problem);
        }
        return List.of(problem);
    }

    /**
     * Records the write in metadata.managedFields: who owns which fields now. An object an
     * apply creates is its applier's, exactly what it applied.
     */
    static void record(ResourceType type, FieldType fields, ObjectNode old, ObjectNode updated, String subresource,
                       WriteOptions opts) {
        if (opts.appliedConfig() != null) {
            Apply.Result r = Apply.apply(null, opts.appliedConfig(), fields, applier(type, null, opts, updated));
            setManagedFields(updated, r.managedFields());
            return;
        }
        String manager = opts.manager() == null ? "unknown" : opts.manager();
        setManagedFields(updated, ManagedFields.update(old, updated, fields, manager, subresource,
                ResourceService.now(), resetFields(type, subresource, updated)));
    }

    /** The applier of a server-side apply through the endpoint, with what that endpoint resets. */
    static Apply.Applier applier(ResourceType type, String subresource, WriteOptions opts, ObjectNode... objs) {
        return new Apply.Applier(opts.fieldManager(), subresource, resetFields(type, subresource, objs),
                opts.force(), ResourceService.now());
    }

    /**
     * The top-level fields a write through the endpoint may not set, which its writer never
     * comes to own (Kubernetes' reset fields): status through the main resource and /scale,
     * all but status through /status.
     */
    private static Set<String> resetFields(ResourceType type, String subresource, ObjectNode... objs) {
        Set<String> reset = new HashSet<>();
        if ("status".equals(subresource)) {
            for (ObjectNode obj : objs) {
                obj.properties().forEach(e -> reset.add(e.getKey()));
            }
            reset.remove("status");
        } else if (type.hasSubresource("status")) {
            reset.add("status");
        }
        return reset;
    }

    /**
     * The managedFields an update starts from: the live object's, unless the client sent
     * others (kubectl moving client-side apply's fields to server-side apply does), which
     * are taken as sent, as Kubernetes takes them; {@code [{}]} clears them. An empty or
     * absent list keeps the live ones.
     */
    static void keepManagedFields(ObjectNode old, ObjectNode updated) {
        JsonNode kept = old.path("metadata").get("managedFields");
        JsonNode sent = updated.path("metadata").get("managedFields");
        if (sent != null && sent.isArray() && !sent.isEmpty() && !sent.equals(kept)) {
            ArrayNode entries = Json.MAPPER.createArrayNode();
            sent.forEach(e -> {
                if (e.hasNonNull("manager")) {
                    entries.add(e);
                }
            });
            setManagedFields(updated, entries);
            return;
        }
        setManagedFields(updated, kept == null ? null : kept.deepCopy());
    }

    /** Sets the object's managedFields; none (null or empty) leaves no field at all. */
    static void setManagedFields(ObjectNode obj, JsonNode entries) {
        ObjectNode meta = Json.child(obj, "metadata");
        if (entries == null || entries.isEmpty()) {
            meta.remove("managedFields");
        } else {
            meta.set("managedFields", entries);
        }
    }
}
