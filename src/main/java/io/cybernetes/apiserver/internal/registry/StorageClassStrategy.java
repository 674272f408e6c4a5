package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * StorageClasses (storage.k8s.io/v1) as Kubernetes' strategy has them: reclaim policy
 * Delete and binding Immediate by default; a provisioner required; parameters,
 * provisioner, reclaim policy and binding mode fixed once created, in Kubernetes' words.
 */
public final class StorageClassStrategy implements KindStrategy {

    @Override
    public void prepareForCreate(ObjectNode obj) {
        setDefaults(obj);
    }

    @Override
    public void prepareForUpdate(ObjectNode obj, ObjectNode old) {
        setDefaults(obj);
    }

    private static void setDefaults(ObjectNode obj) {
        PodSpecs.putIfAbsent(obj, "reclaimPolicy", "Delete");
        PodSpecs.putIfAbsent(obj, "volumeBindingMode", "Immediate");
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        String provisioner = obj.path("provisioner").asString("");
        if (provisioner.isEmpty()) {
            causes.add(MetaValidation.required("provisioner"));
        } else {
            MetaValidation.validateQualifiedName(provisioner, "provisioner", causes);
        }
        String policy = obj.path("reclaimPolicy").asString("Delete");
        if (!policy.equals("Delete") && !policy.equals("Retain")) {
            causes.add(MetaValidation.notSupported("reclaimPolicy", policy, "\"Delete\", \"Retain\""));
        }
        String binding = obj.path("volumeBindingMode").asString("Immediate");
        if (!binding.equals("Immediate") && !binding.equals("WaitForFirstConsumer")) {
            causes.add(MetaValidation.notSupported("volumeBindingMode", binding,
                    "\"Immediate\", \"WaitForFirstConsumer\""));
        }
    }

    @Override
    public void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        validate(obj, causes);
        forbidChange(obj, old, "parameters", causes);
        forbidChange(obj, old, "provisioner", causes);
        forbidChange(obj, old, "reclaimPolicy", causes);
        if (!obj.path("volumeBindingMode").equals(old.path("volumeBindingMode"))) {
            causes.add(MetaValidation.immutable("volumeBindingMode"));
        }
    }

    private static void forbidChange(JsonNode obj, JsonNode old, String field, List<StatusCause> causes) {
        if (!obj.path(field).equals(old.path(field))) {
            causes.add(ApiException.cause(field, "FieldValueForbidden", "Forbidden: updates to " + field
                    + " are forbidden."));
        }
    }
}
