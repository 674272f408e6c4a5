package io.cybernetes.apiserver.internal;

import io.cybernetes.api.ResourceType;
import tools.jackson.databind.node.ObjectNode;

/**
 * A check on the object a write is about to store, knowing who writes it: run after
 * the kind's own validation, on creates ({@code old} null) and updates, dry runs
 * included. Throws an {@link io.cybernetes.api.ApiException} to refuse the write.
 */
interface WriteCheck {

    void check(ResourceType type, String namespace, ObjectNode obj, ObjectNode old, WriteOptions opts);
}
