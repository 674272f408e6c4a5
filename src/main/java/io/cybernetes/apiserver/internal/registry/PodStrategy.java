package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/** Pods: defaults, Pending status on create, and a spec that is immutable but for images and a few fields. */
public final class PodStrategy implements KindStrategy {

    @Override
    public void prepareForCreate(ObjectNode obj) {
        PodSpecs.setDefaults(Json.child(obj, "spec"));
        ObjectNode status = obj.putObject("status");
        status.put("phase", "Pending");
        status.put("qosClass", "BestEffort");
    }

    /** An update is defaulted as a create is, so that a client's unchanged manifest is no change. */
    @Override
    public void prepareForUpdate(ObjectNode obj, ObjectNode old) {
        PodSpecs.setDefaults(Json.child(obj, "spec"));
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        PodSpecs.validate(obj.get("spec"), "spec", causes);
        EphemeralContainers.validateCreate(obj.get("spec"), causes);
    }

    /** A pod bound to a node ends gracefully (its node agent finishes the delete); any other at once. */
    @Override
    public long gracePeriodSeconds(ObjectNode obj, Long requested) {
        String phase = Json.text(obj, "status.phase");
        if (Json.text(obj, "spec.nodeName") == null || "Succeeded".equals(phase) || "Failed".equals(phase)) {
            return 0;
        }
        long grace = requested != null ? requested
                : obj.path("spec").path("terminationGracePeriodSeconds").asLong(30);
        // as Kubernetes: a negative grace period means the shortest graceful one, not an immediate delete
        return grace < 0 ? 1 : grace;
    }

    @Override
    public void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        PodSpecs.validate(obj.get("spec"), "spec", causes);
        if ("ephemeralcontainers".equals(subresource)) {
            EphemeralContainers.validateUpdate(obj.path("spec"), old.path("spec"), causes);
            return;
        }
        if (!"binding".equals(subresource) && !mutableView(obj.get("spec")).equals(mutableView(old.get("spec")))) {
            causes.add(ApiException.cause("spec", "FieldValueForbidden", "Forbidden: pod updates may not change fields"
                    + " other than `spec.containers[*].image`, `spec.initContainers[*].image`,"
                    + " `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations),"
                    + " `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"));
        }
    }

    /** The spec with every field an update may change blanked out. */
    private static JsonNode mutableView(JsonNode spec) {
        if (spec == null || !spec.isObject()) {
            return Json.object();
        }
        ObjectNode copy = (ObjectNode) spec.deepCopy();
        copy.remove(List.of("activeDeadlineSeconds", "tolerations", "terminationGracePeriodSeconds"));
        for (String list : List.of("containers", "initContainers")) {
            if (copy.get(list) instanceof ArrayNode arr) {
                arr.forEach(c -> {
                    if (c instanceof ObjectNode co) {
                        co.remove("image");
                    }
                });
            }
        }
        return copy;
    }

    @Override
    public boolean tracksGeneration() {
        return true;
    }
}
