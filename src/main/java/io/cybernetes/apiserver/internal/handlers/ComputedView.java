package io.cybernetes.apiserver.internal.handlers;

import io.cybernetes.api.ResourceType;
import tools.jackson.databind.node.ObjectNode;

import java.util.List;

/**
 * A read-only resource a component of the server computes rather than stores (the resource
 * metrics): answered for GET of one object or a list, over HTTP and in process alike,
 * after the same authentication and authorization as any resource; any other verb is 405.
 */
public interface ComputedView {

    /** Whether this computes the resource. */
    boolean serves(ResourceType type);

    /** One object; a missing one is the 404 its server gives. */
    ObjectNode get(ResourceType type, String namespace, String name);

    /** The objects a list selects (namespace null: all), with the request's label and field selectors. */
    List<ObjectNode> list(ResourceType type, String namespace, String labelSelector, String fieldSelector);
}
