package io.cybernetes.admission.priority;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.ClusterReader;
import io.cybernetes.admission.MutatingAdmissionPlugin;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * Gives a new pod the priority of its PriorityClass ({@code spec.priorityClassName}, or
 * the class marked {@code globalDefault}, else 0) in {@code spec.priority}, with the
 * class's preemptionPolicy; a class that does not exist, or a priority that disagrees
 * with the class, is refused — as Kubernetes' Priority admission plugin.
 */
public final class Priority implements MutatingAdmissionPlugin {

    public static final String NAME = "Priority";
    private static final String GROUP = "scheduling.k8s.io";
    private static final String RESOURCE = "priorityclasses";

    private final ClusterReader cluster;

    public Priority(ClusterReader cluster) {
        this.cluster = cluster;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Attributes a) {
        return a.isWriteOf("", "pods", Attributes.Operation.CREATE, Attributes.Operation.UPDATE);
    }

    @Override
    public void admit(Attributes a) {
        ObjectNode spec = Json.child(a.object(), "spec");
        if (a.operation() == Attributes.Operation.UPDATE) {
            // what this plugin set at create is kept; changing it is for validation to refuse
            JsonNode oldSpec = a.oldObject() == null ? null : a.oldObject().get("spec");
            for (String field : List.of("priority", "preemptionPolicy")) {
                if (!spec.hasNonNull(field) && oldSpec != null && oldSpec.hasNonNull(field)) {
                    spec.set(field, oldSpec.get(field));
                }
            }
            return;
        }
        String className = spec.path("priorityClassName").asString("");
        JsonNode pc = null;
        if (!className.isEmpty()) {
            pc = cluster.get(GROUP, RESOURCE, "", className).orElseThrow(() -> ApiException.forbidden("", "pods",
                    Json.text(a.object(), "metadata.name"), "no PriorityClass with name " + className + " was found"));
        } else {
            for (ObjectNode candidate : cluster.list(GROUP, RESOURCE, "")) {
                if (candidate.path("globalDefault").asBoolean(false)) {
                    pc = candidate;
                    break;
                }
            }
        }
        int value = pc == null ? 0 : pc.path("value").asInt(0);
        JsonNode given = spec.get("priority");
        if (given != null && !given.isNull() && given.asInt() != value) {
            throw ApiException.forbidden("", "pods", Json.text(a.object(), "metadata.name"), "the integer value of"
                    + " priority (" + given.asInt() + ") must not be provided in pod spec; priority admission"
                    + " controller computed " + value + " from the given PriorityClass name");
        }
        String classPolicy = pc == null ? null : Json.text(pc, "preemptionPolicy");
        String policy = classPolicy == null ? "PreemptLowerPriority" : classPolicy;
        JsonNode givenPolicy = spec.get("preemptionPolicy");
        if (givenPolicy != null && !givenPolicy.isNull() && !givenPolicy.asString().equals(policy)) {
            throw ApiException.forbidden("", "pods", Json.text(a.object(), "metadata.name"), "the string value of"
                    + " PreemptionPolicy (" + givenPolicy.asString() + ") must not be provided in pod spec; priority"
                    + " admission controller computed " + policy + " from the given PriorityClass name");
        }
        spec.put("priority", value);
        spec.put("preemptionPolicy", policy);
        if (pc != null) {
            spec.put("priorityClassName", Json.text(pc, "metadata.name"));
        }
    }
}
