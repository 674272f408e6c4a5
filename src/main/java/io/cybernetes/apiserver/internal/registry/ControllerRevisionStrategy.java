package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * ControllerRevisions (apps/v1), the history DaemonSets and StatefulSets keep: data is
 * required and never changes once written; the revision number is not negative (a
 * controller moves it forward when an old revision becomes current again).
 */
public final class ControllerRevisionStrategy implements KindStrategy {

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        JsonNode data = obj.get("data");
        if (data == null || data.isNull()) {
            causes.add(MetaValidation.required("data", "data is mandatory"));
        }
        JsonNode revision = obj.path("revision");
        if (revision.isNumber() && revision.asLong() < 0) {
            causes.add(ApiException.cause("revision", "FieldValueInvalid", "Invalid value: " + revision.asLong()
                    + ": must be greater than or equal to 0"));
        }
    }

    @Override
    public void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        validate(obj, causes);
        if (!obj.path("data").equals(old.path("data"))) {
            causes.add(MetaValidation.immutable("data"));
        }
    }
}
