package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ResourceType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;

/**
 * A subresource whose answer is a stream from elsewhere rather than an object: a pod's
 * log, exec, attach and port-forward, proxied to the node that runs the pod. Served over
 * HTTP only; the handler writes the response itself.
 */
public interface StreamedSubresource {

    /** Whether this serves the subresource of the kind. */
    boolean serves(ResourceType type, String subresource);

    void serve(HttpServletRequest request, HttpServletResponse response, ResourceType type, String namespace,
               String name, String subresource) throws IOException;
}
