package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Validation of an int-or-percent field (maxSurge, maxUnavailable, minAvailable) in
 * Kubernetes' words: a number not negative, or a percentage string; optionally at most 100%.
 */
final class IntOrPercentField {

    private static final Pattern PERCENT = Pattern.compile("[0-9]+%");

    private IntOrPercentField() {
    }

    /**
     * Checks the value at {@code path}; returns it as a number (a percentage as its
     * number), or -1 when it is absent or invalid.
     */
    static int validate(JsonNode v, String path, boolean atMost100, List<StatusCause> causes) {
        if (v == null || v.isNull() || v.isMissingNode()) {
            return -1;
        }
        if (v.isIntegralNumber()) {
            if (v.asLong() < 0) {
                causes.add(ApiException.cause(path, "FieldValueInvalid", "Invalid value: " + v.asLong()
                        + ": must be greater than or equal to 0"));
                return -1;
            }
            return (int) Math.min(Integer.MAX_VALUE, v.asLong());
        }
        if (v.isString() && PERCENT.matcher(v.asString()).matches()) {
            int pct = Integer.parseInt(v.asString().substring(0, v.asString().length() - 1));
            if (atMost100 && pct > 100) {
                causes.add(ApiException.cause(path, "FieldValueInvalid", "Invalid value: \"" + v.asString()
                        + "\": must not be greater than 100%"));
                return -1;
            }
            return pct;
        }
        causes.add(ApiException.cause(path, "FieldValueInvalid", "Invalid value: \"" + v.asString()
                + "\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',"
                + "  or '93%', regex used for validation is '[0-9]+%')"));
        return -1;
    }

    /**
     * A rolling update's maxUnavailable and maxSurge (under {@code path}): each valid,
     * maxUnavailable at most 100%, and not both zero.
     */
    static void validateRollingUpdate(JsonNode ru, String path, List<StatusCause> causes) {
        if (ru == null || !ru.isObject()) {
            return;
        }
        int unavailable = validate(ru.get("maxUnavailable"), path + ".maxUnavailable", true, causes);
        int surge = validate(ru.get("maxSurge"), path + ".maxSurge", false, causes);
        if (unavailable == 0 && surge == 0) {
            causes.add(ApiException.cause(path + ".maxUnavailable", "FieldValueInvalid", "Invalid value: "
                    + ru.get("maxUnavailable") + ": may not be 0 when `maxSurge` is 0"));
        }
    }
}
