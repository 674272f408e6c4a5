package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.cybernetes.api.Quantities;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.util.List;

/**
 * PersistentVolumeClaims (core/v1) as Kubernetes' strategy has them: Pending on create, a
 * Filesystem volume by default, validation in Kubernetes' words (access modes, a storage
 * request above zero), and once created a spec that changes only by growing the request of
 * a bound claim, by naming its volume or its class once.
 */
public final class PersistentVolumeClaimStrategy extends StorageObjectStrategy {

    static final List<String> ACCESS_MODES = List.of("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce",
            "ReadWriteOncePod");

    public PersistentVolumeClaimStrategy() {
        super(List.of("Bound", "Lost", "Pending"));
    }

    @Override
    void setDefaults(ObjectNode obj) {
        PodSpecs.putIfAbsent(Json.child(obj, "spec"), "volumeMode", "Filesystem");
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        validateSpec(obj.path("spec"), "spec", causes);
    }

    /** A claim's spec (also a StatefulSet's claim templates'): access modes, a storage request, a volume mode. */
    static void validateSpec(JsonNode spec, String path, List<StatusCause> causes) {
        JsonNode modes = spec.path("accessModes");
        if (modes.isEmpty()) {
            causes.add(MetaValidation.required(path + ".accessModes", "at least 1 access mode is required"));
        }
        for (JsonNode m : modes) {
            if (!ACCESS_MODES.contains(m.asString(""))) {
                causes.add(MetaValidation.notSupported(path + ".accessModes", m.asString(""),
                        "\"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\""));
            }
        }
        if (modes.size() > 1 && Json.strings(modes).contains("ReadWriteOncePod")) {
            causes.add(ApiException.cause(path + ".accessModes", "FieldValueForbidden",
                    "Forbidden: may not use ReadWriteOncePod with other access modes"));
        }
        JsonNode storage = spec.path("resources").path("requests").path("storage");
        if (storage.isMissingNode() || storage.isNull()) {
            causes.add(ApiException.cause(path + ".resources[storage]", "FieldValueRequired", "Required value"));
        } else if (size(storage).signum() <= 0) {
            causes.add(ApiException.cause(path + ".resources[storage]", "FieldValueInvalid", "Invalid value: \""
                    + storage.asString(storage.toString()) + "\": must be greater than zero"));
        }
        String mode = spec.path("volumeMode").asString("Filesystem");
        if (!mode.equals("Filesystem") && !mode.equals("Block")) {
            causes.add(MetaValidation.notSupported(path + ".volumeMode", mode, "\"Block\", \"Filesystem\""));
        }
    }

    static BigDecimal size(JsonNode quantity) {
        try {
            return Quantities.parse(quantity.isNumber() ? quantity.toString() : quantity.asString(""));
        } catch (RuntimeException e) {
            return BigDecimal.ZERO;
        }
    }

    @Override
    public void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        if (validatedStatus(obj, subresource, causes)) {
            return;
        }
        validate(obj, causes);
        ObjectNode spec = obj.path("spec").isObject() ? ((ObjectNode) obj.path("spec")).deepCopy() : Json.object();
        ObjectNode was = old.path("spec").isObject() ? ((ObjectNode) old.path("spec")).deepCopy() : Json.object();
        // what may change: a volume or a class named where there was none, the request of a bound claim
        if (!was.hasNonNull("volumeName")) {
            spec.remove("volumeName");
        }
        if (!was.hasNonNull("storageClassName")) {
            spec.remove("storageClassName");
            was.remove("storageClassName");
        }
        boolean bound = "Bound".equals(obj.path("status").path("phase").asString(""));
        if (bound) {
            Json.child(Json.child(spec, "resources"), "requests").set("storage",
                    was.path("resources").path("requests").path("storage"));
        }
        if (!spec.equals(was)) {
            causes.add(ApiException.cause("spec", "FieldValueForbidden", "Forbidden: spec is immutable after creation"
                    + " except resources.requests and volumeAttributesClassName for bound claims"));
        }
        BigDecimal now = size(obj.path("spec").path("resources").path("requests").path("storage"));
        BigDecimal before = size(old.path("spec").path("resources").path("requests").path("storage"));
        JsonNode capacity = obj.path("status").path("capacity").path("storage");
        if (bound && now.compareTo(before) < 0 && !capacity.isMissingNode() && now.compareTo(size(capacity)) <= 0) {
            causes.add(ApiException.cause("spec.resources.requests.storage", "FieldValueForbidden",
                    "Forbidden: field can not be less than status.capacity"));
        }
    }
}
