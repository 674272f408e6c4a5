package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ResourceType;
import tools.jackson.databind.JsonNode;

import java.io.IOException;

/**
 * Serves a subresource that is more than the object's own get and update (as
 * {@code status} and {@code finalize} are): {@code scale}, {@code binding}, {@code token}.
 * One handler serves the subresource of every kind that declares it; what differs by kind
 * comes from the kind itself.
 */
public interface SubresourceHandler {

    /** One request to the subresource of a named object. */
    record Call(ApiCall request, ResourceType type, String namespace, String name, ResourceService service,
                RequestReader reader) {
    }

    /** The body to answer and its status code. */
    record Answer(JsonNode body, int code) {

        /** A Success Status with the code, as a subresource that acts (a binding, an eviction) answers. */
        static Answer success(int code) {
            tools.jackson.databind.node.ObjectNode success = io.cybernetes.api.Json.object();
            success.put("kind", "Status");
            success.put("apiVersion", "v1");
            success.putObject("metadata");
            success.put("status", "Success");
            success.put("code", code);
            return new Answer(success, code);
        }
    }

    Answer serve(Call call) throws IOException;
}
