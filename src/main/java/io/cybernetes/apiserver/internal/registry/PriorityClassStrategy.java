package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Objects;

/** PriorityClasses: a value is required, at most one billion for user classes, and value and policy never change. */
public final class PriorityClassStrategy implements KindStrategy {

    public static final long HIGHEST_USER_PRIORITY = 1_000_000_000L;

    @Override
    public void prepareForCreate(ObjectNode obj) {
        if (!obj.has("preemptionPolicy")) {
            obj.put("preemptionPolicy", "PreemptLowerPriority");
        }
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        JsonNode value = obj.get("value");
        if (value == null || value.isNull()) {
            causes.add(MetaValidation.required("value"));
        } else if (value.asLong() > HIGHEST_USER_PRIORITY) {
            causes.add(ApiException.cause("value", "FieldValueInvalid", "Invalid value: " + value.asLong()
                    + ": must be no greater than " + HIGHEST_USER_PRIORITY));
        }
    }

    @Override
    public void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        validate(obj, causes);
        for (String field : List.of("value", "preemptionPolicy")) {
            if (!Objects.equals(obj.get(field), old.get(field))) {
                causes.add(MetaValidation.immutable(field));
            }
        }
    }
}
