package io.cybernetes.admission.storage;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.ClusterReader;
import io.cybernetes.admission.MutatingAdmissionPlugin;
import io.cybernetes.api.Json;
import io.cybernetes.api.StorageClasses;
import tools.jackson.databind.node.ObjectNode;

/**
 * Gives a new claim that names no storage class the cluster's default one — the class
 * annotated {@value #DEFAULT_ANNOTATION}, the newest when there are several — as
 * Kubernetes' DefaultStorageClass admission plugin does. A claim whose class is {@code ""}
 * asks for none and keeps it.
 */
public final class DefaultStorageClass implements MutatingAdmissionPlugin {

    public static final String NAME = "DefaultStorageClass";
    public static final String DEFAULT_ANNOTATION = StorageClasses.DEFAULT_ANNOTATION;

    private final ClusterReader cluster;

    public DefaultStorageClass(ClusterReader cluster) {
        this.cluster = cluster;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean handles(Attributes a) {
        return a.isWriteOf("", "persistentvolumeclaims", Attributes.Operation.CREATE);
    }

    @Override
    public void admit(Attributes a) {
        ObjectNode spec = Json.child(a.object(), "spec");
        if (spec.hasNonNull("storageClassName")) {
            return;
        }
        StorageClasses.defaultOf(cluster.list("storage.k8s.io", "storageclasses", ""))
                .ifPresent(name -> spec.put("storageClassName", name));
    }
}
