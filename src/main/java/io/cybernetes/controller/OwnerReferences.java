package io.cybernetes.controller;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;

/** The controller links between objects: who controls an object, and the reference a controller puts on what it makes. */
public final class OwnerReferences {

    private OwnerReferences() {
    }

    /** The owner reference marked {@code controller: true}, or null. */
    public static OwnerReference controllerOf(HasMetadata o) {
        if (o.getMetadata().getOwnerReferences() == null) {
            return null;
        }
        for (OwnerReference r : o.getMetadata().getOwnerReferences()) {
            if (Boolean.TRUE.equals(r.getController())) {
                return r;
            }
        }
        return null;
    }

    /** The key (namespace/name) of the object's controller when it is of {@code kind}, else null. */
    public static String controllerKey(HasMetadata o, String kind) {
        OwnerReference ref = controllerOf(o);
        return ref == null || !kind.equals(ref.getKind()) ? null : o.getMetadata().getNamespace() + "/" + ref.getName();
    }

    /** A reference to {@code owner} as the controller of what it makes, blocking its foreground deletion. */
    public static OwnerReference controlledBy(HasMetadata owner) {
        return new OwnerReferenceBuilder().withApiVersion(owner.getApiVersion()).withKind(owner.getKind())
                .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid()).withController(true)
                .withBlockOwnerDeletion(true).build();
    }
}
