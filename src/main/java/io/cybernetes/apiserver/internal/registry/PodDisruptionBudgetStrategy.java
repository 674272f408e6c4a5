package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.regex.Pattern;

/**
 * PodDisruptionBudgets (policy/v1): the status reset on create and generations counted (an
 * eviction waits until the disruption controller has seen the latest spec), and validation
 * in Kubernetes' words — one of minAvailable and maxUnavailable, numbers not negative,
 * percentages between 0 and 100%, the unhealthy pod eviction policies.
 */
public final class PodDisruptionBudgetStrategy implements KindStrategy {

    private static final Pattern PERCENT = Pattern.compile("[0-9]+%");

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
            JsonNode v = spec.get(f);
            if (v == null || v.isNull()) {
                continue;
            }
            String path = "spec." + f;
            if (v.isIntegralNumber()) {
                if (v.asLong() < 0) {
                    causes.add(ApiException.cause(path, "FieldValueInvalid", "Invalid value: " + v.asLong()
                            + ": must be greater than or equal to 0"));
                }
            } else if (v.isString() && PERCENT.matcher(v.asString()).matches()) {
                int pct = Integer.parseInt(v.asString().substring(0, v.asString().length() - 1));
                if (pct > 100) {
                    causes.add(ApiException.cause(path, "FieldValueInvalid", "Invalid value: \"" + v.asString()
                            + "\": must not be greater than 100%"));
                }
            } else {
                causes.add(ApiException.cause(path, "FieldValueInvalid", "Invalid value: \"" + v.asString()
                        + "\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',"
                        + "  or '93%', regex used for validation is '[0-9]+%')"));
            }
        }
        JsonNode policy = spec.get("unhealthyPodEvictionPolicy");
        if (policy != null && !policy.isNull() && !List.of("IfHealthyBudget", "AlwaysAllow")
                .contains(policy.asString(""))) {
            causes.add(MetaValidation.notSupported("spec.unhealthyPodEvictionPolicy", policy.asString(""),
                    "\"AlwaysAllow\", \"IfHealthyBudget\""));
        }
    }
}
