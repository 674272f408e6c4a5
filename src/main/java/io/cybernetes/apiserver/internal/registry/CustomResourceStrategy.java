package io.cybernetes.apiserver.internal.registry;

import io.cybernetes.api.ApiException;
import tools.jackson.databind.node.ObjectNode;

import java.util.function.BooleanSupplier;

/**
 * Custom resources as apiextensions-apiserver's strategy treats them: with a status
 * subresource a create starts without status; the generation counts every change
 * outside metadata and status; and while their CRD is being deleted no new one is made.
 */
public final class CustomResourceStrategy implements KindStrategy {

    private final boolean statusSubresource;
    private final BooleanSupplier terminating;

    public CustomResourceStrategy(boolean statusSubresource, BooleanSupplier terminating) {
        this.statusSubresource = statusSubresource;
        this.terminating = terminating;
    }

    @Override
    public void prepareForCreate(ObjectNode obj) {
        if (terminating.getAsBoolean()) {
            throw ApiException.methodNotAllowed("create not allowed while custom resource definition is terminating");
        }
        if (statusSubresource) {
            obj.remove("status");
        }
    }

    @Override
    public boolean tracksGeneration() {
        return true;
    }
}
