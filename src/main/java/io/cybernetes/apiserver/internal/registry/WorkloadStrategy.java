package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Map;

/** Deployments and ReplicaSets: replicas and strategy defaults, a selector that matches the template. */
public final class WorkloadStrategy extends DefaultingStrategy {

    private final boolean deployment;

    public WorkloadStrategy(boolean deployment) {
        this.deployment = deployment;
    }

    @Override
    void setDefaults(ObjectNode obj) {
        ObjectNode spec = Json.child(obj, "spec");
        if (!spec.has("replicas")) {
            spec.put("replicas", 1);
        }
        if (deployment) {
            if (!spec.has("revisionHistoryLimit")) {
                spec.put("revisionHistoryLimit", 10);
            }
            if (!spec.has("progressDeadlineSeconds")) {
                spec.put("progressDeadlineSeconds", 600);
            }
            ObjectNode strategy = Json.child(spec, "strategy");
            PodSpecs.putIfAbsent(strategy, "type", "RollingUpdate");
            if ("RollingUpdate".equals(strategy.path("type").asString())) {
                ObjectNode ru = Json.child(strategy, "rollingUpdate");
                if (!ru.has("maxSurge")) {
                    ru.put("maxSurge", "25%");
                }
                if (!ru.has("maxUnavailable")) {
                    ru.put("maxUnavailable", "25%");
                }
            }
        }
        JsonNode template = spec.get("template");
        if (template instanceof ObjectNode t) {
            PodSpecs.setDefaults(Json.child(t, "spec"));
        }
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        JsonNode spec = obj.get("spec");
        if (spec == null || !spec.isObject()) {
            causes.add(MetaValidation.required("spec"));
            return;
        }
        // required fields, bounds and enums are the schema's; what is left here relates fields to each other
        validateSelector(spec, causes);
        if (spec.has("template")) {
            PodSpecs.validate(spec.path("template").get("spec"), "spec.template.spec", causes);
        }
        if (deployment && "RollingUpdate".equals(spec.path("strategy").path("type").asString(""))) {
            IntOrPercentField.validateRollingUpdate(spec.path("strategy").get("rollingUpdate"),
                    "spec.strategy.rollingUpdate", causes);
        }
    }

    /** An apps workload's selector: present, not empty, and matching its template's labels. */
    static void validateSelector(JsonNode spec, List<StatusCause> causes) {
        JsonNode selector = spec.get("selector");
        if (selector == null || !selector.isObject()
                || (selector.path("matchLabels").isEmpty() && selector.path("matchExpressions").isEmpty())) {
            causes.add(MetaValidation.required("spec.selector"));
        } else if (spec.has("template")) {
            JsonNode labels = spec.path("template").path("metadata").path("labels");
            for (Map.Entry<String, JsonNode> e : selector.path("matchLabels").properties()) {
                if (!e.getValue().equals(labels.get(e.getKey()))) {
                    causes.add(ApiException.cause("spec.template.metadata.labels", "FieldValueInvalid",
                            "Invalid value: " + labels + ": `selector` does not match template `labels`"));
                    break;
                }
            }
        }
    }

    /**
     * The pods of a DaemonSet or a StatefulSet restart always and have no deadline ({@code why}:
     * the kind's words for a deadline).
     */
    static void validateLongRunningTemplate(JsonNode spec, String why, List<StatusCause> causes) {
        JsonNode podSpec = spec.path("template").path("spec");
        String restart = podSpec.path("restartPolicy").asString("Always");
        if (!restart.equals("Always")) {
            causes.add(MetaValidation.notSupported("spec.template.spec.restartPolicy", restart, "\"Always\""));
        }
        if (podSpec.hasNonNull("activeDeadlineSeconds")) {
            causes.add(ApiException.cause("spec.template.spec.activeDeadlineSeconds", "FieldValueInvalid",
                    "Invalid value: " + podSpec.path("activeDeadlineSeconds").asLong() + ": " + why));
        }
        if (spec.has("template")) {
            PodSpecs.validate(podSpec, "spec.template.spec", causes);
        }
    }

    /** An apps/v1 workload's selector never changes. */
    static void validateSelectorUnchanged(ObjectNode obj, ObjectNode old, List<StatusCause> causes) {
        JsonNode a = obj.path("spec").get("selector");
        JsonNode b = old.path("spec").get("selector");
        if (a != null && b != null && !a.equals(b)) {
            causes.add(MetaValidation.immutable("spec.selector"));
        }
    }

    /** A whole number at {@code spec.field} that may not be negative. */
    static void validateNotNegative(JsonNode spec, String field, List<StatusCause> causes) {
        JsonNode v = spec.path(field);
        if (v.isNumber() && v.asLong() < 0) {
            causes.add(ApiException.cause("spec." + field, "FieldValueInvalid", "Invalid value: " + v.asLong()
                    + ": must be greater than or equal to 0"));
        }
    }

    @Override
    public void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        validate(obj, causes);
        if (deployment || "apps/v1".equals(Json.text(obj, "apiVersion"))) {
            validateSelectorUnchanged(obj, old, causes);
        }
    }

}
