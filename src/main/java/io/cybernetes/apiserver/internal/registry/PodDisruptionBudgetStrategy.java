package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * PodDisruptionBudgets (policy/v1): the status reset on create and generations counted (an
 * eviction waits until the disruption controller has seen the latest spec), and validation
 * in Kubernetes' words — one of minAvailable and maxUnavailable, numbers not negative,
 * percentages between 0 and 100%, the unhealthy pod eviction policies.
 */
public final class PodDisruptionBudgetStrategy implements KindStrategy {

    @Override
    public void prepareForCreate(ObjectNode obj) {
        obj.remove("status");
    }

    @Override
    public boolean tracksGeneration() {
        return true;
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        JsonNode spec = obj.path("spec");
        if (spec.hasNonNull("minAvailable") && spec.hasNonNull("maxUnavailable")) {
            causes.add(ApiException.cause("spec", "FieldValueInvalid", "Invalid value: " + spec + ": minAvailable and"
                    + " maxUnavailable cannot be both set"));
        }
        for (String f : List.of("minAvailable", "maxUnavailable")) {
            IntOrPercentField.validate(spec.get(f), "spec." + f, true, causes);
        }
        JsonNode policy = spec.get("unhealthyPodEvictionPolicy");
        if (policy != null && !policy.isNull() && !List.of("IfHealthyBudget", "AlwaysAllow")
                .contains(policy.asString(""))) {
            causes.add(MetaValidation.notSupported("spec.unhealthyPodEvictionPolicy", policy.asString(""),
                    "\"AlwaysAllow\", \"IfHealthyBudget\""));
        }
    }
}
