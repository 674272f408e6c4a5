package io.cybernetes.store;

import tools.jackson.databind.node.ObjectNode;

/**
 * One version of an object as the store holds it. {@code value} carries
 * {@code metadata.resourceVersion} equal to {@code modRevision}. Values handed out by
 * lists and watches are shared: treat them as read-only.
 */
public record StoredObject(String key, long createRevision, long modRevision, ObjectNode value) {
}
