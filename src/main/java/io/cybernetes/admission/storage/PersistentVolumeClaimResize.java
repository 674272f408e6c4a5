package io.cybernetes.admission.storage;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.ClusterReader;
import io.cybernetes.admission.ValidatingAdmissionPlugin;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Quantities;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;

/**
 * A claim's storage request grows only when the claim is bound and its class allows
 * expansion ({@code allowVolumeExpansion: true}), as Kubernetes' PersistentVolumeClaimResize
 * plugin decides, in its words.
 */
public final class PersistentVolumeClaimResize implements ValidatingAdmissionPlugin {

    public static final String NAME = "PersistentVolumeClaimResize";

    private final ClusterReader cluster;

    public PersistentVolumeClaimResize(ClusterReader cluster) {
        this.cluster = cluster;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Attributes a) {
        return a.isWriteOf("", "persistentvolumeclaims", Attributes.Operation.UPDATE);
    }

    @Override
    public void validate(Attributes a) {
        if (storage(a.object()).compareTo(storage(a.oldObject())) <= 0) {
            return;
        }
        if (!"Bound".equals(a.oldObject().path("status").path("phase").asString(""))) {
            throw ApiException.forbidden("", "persistentvolumeclaims", a.name(),
                    "Only bound persistent volume claims can be expanded");
        }
        String className = a.oldObject().path("spec").path("storageClassName").asString("");
        boolean allowed = !className.isEmpty() && cluster.get("storage.k8s.io", "storageclasses", "", className)
                .map(c -> c.path("allowVolumeExpansion").asBoolean(false)).orElse(false);
        if (!allowed) {
            throw ApiException.forbidden("", "persistentvolumeclaims", a.name(), "only dynamically provisioned pvc"
                    + " can be resized and the storageclass that provisions the pvc must support resize");
        }
    }

    private static BigDecimal storage(ObjectNode claim) {
        JsonNode q = claim == null ? null : claim.path("spec").path("resources").path("requests").path("storage");
        try {
            return q == null || q.isMissingNode() ? BigDecimal.ZERO : Quantities.parse(q.asString(q.toString()));
        } catch (RuntimeException e) {
            return BigDecimal.ZERO;
        }
    }
}
