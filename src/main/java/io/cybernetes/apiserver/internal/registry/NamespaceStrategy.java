package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.Json;
import tools.jackson.databind.node.ObjectNode;

/**
 * Namespaces: the {@code kubernetes} finalizer, phase Active, and the name label; a
 * deleted namespace is Terminating until the namespace controller has emptied it and
 * removed its spec finalizers.
 */
public final class NamespaceStrategy implements KindStrategy {

    public static final String NAME_LABEL = "kubernetes.io/metadata.name";

    @Override
    public void prepareForCreate(ObjectNode obj) {
        ObjectNode spec = Json.child(obj, "spec");
        spec.putArray("finalizers").add("kubernetes");
        obj.putObject("status").put("phase", "Active");
        Json.child(Json.child(obj, "metadata"), "labels").put(NAME_LABEL, Json.text(obj, "metadata.name"));
    }

    @Override
    public boolean terminates() {
        return true;
    }

    @Override
    public void markTerminating(ObjectNode obj) {
        Json.child(obj, "status").put("phase", "Terminating");
    }

    @Override
    public boolean finalized(ObjectNode obj) {
        return obj.path("spec").path("finalizers").isEmpty();
    }
}
