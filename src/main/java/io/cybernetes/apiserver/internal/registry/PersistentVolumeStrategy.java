package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import io.fabric8.kubernetes.api.model.StatusCause;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * PersistentVolumes (core/v1) as Kubernetes' strategy has them: Pending on create, reclaim
 * policy Retain and a Filesystem volume by default; validation in Kubernetes' words (a
 * capacity, access modes, exactly one volume source, the reclaim policies), and the
 * volume source fixed once created.
 */
public final class PersistentVolumeStrategy extends StorageObjectStrategy {

    /** The volume sources a PersistentVolume may have, one of them. */
    static final Set<String> SOURCES = Set.of("hostPath", "local", "nfs", "csi", "iscsi", "fc", "rbd", "cephfs",
            "cinder", "glusterfs", "gcePersistentDisk", "awsElasticBlockStore", "azureDisk", "azureFile",
            "vsphereVolume", "portworxVolume", "scaleIO", "storageos", "flexVolume", "flocker", "quobyte",
            "photonPersistentDisk");

    public PersistentVolumeStrategy() {
        super(List.of("Available", "Bound", "Failed", "Pending", "Released"));
    }

    @Override
    void setDefaults(ObjectNode obj) {
        ObjectNode spec = Json.child(obj, "spec");
        PodSpecs.putIfAbsent(spec, "persistentVolumeReclaimPolicy", "Retain");
        PodSpecs.putIfAbsent(spec, "volumeMode", "Filesystem");
    }

    @Override
    public void validate(ObjectNode obj, List<StatusCause> causes) {
        JsonNode spec = obj.path("spec");
        if (spec.path("accessModes").isEmpty()) {
            causes.add(MetaValidation.required("spec.accessModes"));
        }
        for (JsonNode m : spec.path("accessModes")) {
            if (!PersistentVolumeClaimStrategy.ACCESS_MODES.contains(m.asString(""))) {
                causes.add(MetaValidation.notSupported("spec.accessModes", m.asString(""),
                        "\"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", \"ReadWriteOncePod\""));
            }
        }
        JsonNode storage = spec.path("capacity").path("storage");
        if (storage.isMissingNode() || storage.isNull()) {
            causes.add(ApiException.cause("spec.capacity", "FieldValueRequired", "Required value"));
        } else if (PersistentVolumeClaimStrategy.size(storage).signum() <= 0) {
            causes.add(ApiException.cause("spec.capacity[storage]", "FieldValueInvalid", "Invalid value: \""
                    + storage.asString(storage.toString()) + "\": must be greater than zero"));
        }
        List<String> sources = sources(spec);
        if (sources.isEmpty()) {
            causes.add(MetaValidation.required("spec", "must specify a volume type"));
        } else if (sources.size() > 1) {
            causes.add(ApiException.cause("spec." + sources.get(1), "FieldValueForbidden",
                    "Forbidden: may not specify more than 1 volume type"));
        }
        String policy = spec.path("persistentVolumeReclaimPolicy").asString("Retain");
        if (!List.of("Delete", "Recycle", "Retain").contains(policy)) {
            causes.add(MetaValidation.notSupported("spec.persistentVolumeReclaimPolicy", policy,
                    "\"Delete\", \"Recycle\", \"Retain\""));
        }
    }

    private static List<String> sources(JsonNode spec) {
        List<String> out = new ArrayList<>();
        for (String name : spec.propertyNames()) {
            if (SOURCES.contains(name) && !spec.path(name).isNull()) {
                out.add(name);
            }
        }
        out.sort(null);
        return out;
    }

    @Override
    public void validateUpdate(ObjectNode obj, ObjectNode old, String subresource, List<StatusCause> causes) {
        if (validatedStatus(obj, subresource, causes)) {
            return;
        }
        validate(obj, causes);
        for (String source : SOURCES) {
            if (!obj.path("spec").path(source).equals(old.path("spec").path(source))) {
                causes.add(ApiException.cause("spec.persistentvolumesource", "FieldValueForbidden",
                        "Forbidden: spec.persistentvolumesource is immutable after creation"));
                break;
            }
        }
    }
}
