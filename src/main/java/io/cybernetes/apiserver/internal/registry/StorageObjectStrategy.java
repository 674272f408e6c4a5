package io.cybernetes.apiserver.internal.registry;

import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * What claims and volumes share: Pending when created (whatever status was sent), their
 * defaults filled in on every write, and a status subresource whose phase is one the kind
 * has (its other checks are the kind's own).
 */
abstract class StorageObjectStrategy implements KindStrategy {

    private final List<String> phases;

    /** @param phases the kind's phases, in the order Kubernetes lists them in its refusal */
    StorageObjectStrategy(List<String> phases) {
        this.phases = phases;
    }

    abstract void setDefaults(ObjectNode obj);

    @Override
    public void prepareForCreate(ObjectNode obj) {
        obj.remove("status");
        obj.putObject("status").put("phase", "Pending");
        setDefaults(obj);
    }

    @Override
    public void prepareForUpdate(ObjectNode obj, ObjectNode old) {
        setDefaults(obj);
    }

    /** For an update of the status subresource, checks its phase and returns true: there is nothing more to check. */
    boolean validatedStatus(ObjectNode obj, String subresource, List<StatusCause> causes) {
        if (!"status".equals(subresource)) {
            return false;
        }
        String phase = obj.path("status").path("phase").asString("Pending");
        if (!phases.contains(phase)) {
            causes.add(MetaValidation.notSupported("status.phase", phase,
                    String.join(", ", phases.stream().map(p -> "\"" + p + "\"").toList())));
        }
        return true;
    }
}
