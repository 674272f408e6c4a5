package io.cybernetes.admission.namespacelifecycle;

import io.cybernetes.admission.Attributes;
import io.cybernetes.admission.ClusterReader;
import io.cybernetes.admission.ValidatingAdmissionPlugin;
import io.cybernetes.api.ApiException;
import io.cybernetes.api.Json;
import tools.jackson.databind.node.ObjectNode;

import java.util.Optional;
import java.util.Set;

/**
 * Nothing is created in a namespace that does not exist or is being deleted, and the
 * namespaces the system needs ({@code default}, {@code kube-system}, {@code kube-public})
 * cannot be deleted.
 */
public final class NamespaceLifecycle implements ValidatingAdmissionPlugin {

    public static final String NAME = "NamespaceLifecycle";
    static final Set<String> IMMORTAL = Set.of("default", "kube-system", "kube-public");

    private final ClusterReader cluster;

    public NamespaceLifecycle(ClusterReader cluster) {
        this.cluster = cluster;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void validate(Attributes a) {
        if (a.operation() == Attributes.Operation.DELETE && a.is("", "namespaces") && a.subresource().isEmpty()
                && IMMORTAL.contains(a.name())) {
            throw ApiException.forbidden("", "namespaces", a.name(), "this namespace may not be deleted");
        }
        if (a.operation() != Attributes.Operation.CREATE || a.namespace().isEmpty() || a.is("", "namespaces")) {
            return;
        }
        Optional<ObjectNode> ns = cluster.get("", "namespaces", "", a.namespace());
        if (ns.isEmpty()) {
            throw ApiException.notFound("namespaces \"" + a.namespace() + "\" not found");
        }
        if (Json.text(ns.get(), "metadata.deletionTimestamp") != null) {
            throw ApiException.forbidden(a.group(), a.resource(), a.name(), "unable to create new content in namespace "
                    + a.namespace() + " because it is being terminated");
        }
    }
}
