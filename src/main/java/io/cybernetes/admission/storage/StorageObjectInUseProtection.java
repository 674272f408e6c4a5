package io.cybernetes.admission.storage;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.MutatingAdmissionPlugin;
import io.cybernetes.api.Json;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Puts the protection finalizer on every new claim ({@value #PVC_PROTECTION}) and volume
 * ({@value #PV_PROTECTION}), as Kubernetes' StorageObjectInUseProtection plugin does: a
 * claim a pod uses, or a volume bound to a claim, stays until its protection controller
 * sees it is free.
 */
public final class StorageObjectInUseProtection implements MutatingAdmissionPlugin {

    public static final String NAME = "StorageObjectInUseProtection";
    public static final String PVC_PROTECTION = "kubernetes.io/pvc-protection";
    public static final String PV_PROTECTION = "kubernetes.io/pv-protection";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Attributes a) {
        return a.isWriteOf("", "persistentvolumeclaims", Attributes.Operation.CREATE)
                || a.isWriteOf("", "persistentvolumes", Attributes.Operation.CREATE);
    }

    @Override
    public void admit(Attributes a) {
        String finalizer = a.resource().equals("persistentvolumes") ? PV_PROTECTION : PVC_PROTECTION;
        ObjectNode meta = Json.child(a.object(), "metadata");
        ArrayNode finalizers = meta.get("finalizers") instanceof ArrayNode f ? f : meta.putArray("finalizers");
        for (JsonNode f : finalizers) {
            if (finalizer.equals(f.asString(""))) {
                return;
            }
        }
        finalizers.add(finalizer);
    }
}
