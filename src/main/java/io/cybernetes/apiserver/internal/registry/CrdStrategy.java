package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.Json;
import io.cybernetes.apiserver.internal.apiextensions.CrdConditions;
import io.cybernetes.apiserver.internal.apiextensions.CrdValidation;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Locale;

/**
 * CustomResourceDefinitions as apiextensions-apiserver's strategy treats them: the names
 * a client may leave out are defaulted (singular, listKind, the conversion strategy), a
 * new CRD starts without status, the generation counts spec changes, and validation is
 * {@link CrdValidation}'s.
 */
public final class CrdStrategy implements KindStrategy {

    @Override
    public void prepareForCreate(ObjectNode obj) {
        obj.remove("status");
        defaults(obj);
    }

    @Override
    public void prepareForUpdate(ObjectNode obj, ObjectNode old) {
        defaults(obj);
    }

    private static void defaults(ObjectNode obj) {
        ObjectNode spec = Json.child(obj, "spec");
        ObjectNode names = Json.child(spec, "names");
        String kind = Json.text(names, "kind");
        if (kind != null && !kind.isEmpty()) {
            if (!names.hasNonNull("singular") || names.get("singular").asString().isEmpty()) {
                names.put("singular", kind.toLowerCase(Locale.ROOT));
            }
            if (!names.hasNonNull("listKind") || names.get("listKind").asString().isEmpty()) {
                names.put("listKind", kind + "List");
            }
        }
        if (!spec.path("conversion").has("strategy")) {
            Json.child(spec, "conversion").put("strategy", "None");
        }
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        causes.addAll(CrdValidation.validate(obj));
    }

    @Override
    public void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        causes.addAll("status".equals(subresource) ? CrdValidation.validateStatus(obj)
                : CrdValidation.validateUpdate(obj, old));
    }

    @Override
    public boolean tracksGeneration() {
        return true;
    }

    /** A deleted CRD stays until its instances are gone (the CRD controller removes the finalizer then). */
    @Override
    public boolean terminates() {
        return true;
    }

    @Override
    public void markTerminating(ObjectNode obj) {
        ObjectNode meta = Json.child(obj, "metadata");
        ArrayNode finalizers = meta.has("finalizers") && meta.get("finalizers").isArray()
                ? (ArrayNode) meta.get("finalizers") : meta.putArray("finalizers");
        if (!Json.strings(finalizers).contains(CrdConditions.CLEANUP_FINALIZER)) {
            finalizers.add(CrdConditions.CLEANUP_FINALIZER);
        }
        CrdConditions.set(Json.child(obj, "status"), "Terminating", "True", "InstanceDeletionPending",
                "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon");
    }
}
