package io.cybernetes.store;

import tools.jackson.databind.node.ObjectNode;

/**
 * One change in revision order. For DELETED, {@code object} is the last state of the
 * object stamped with the deletion revision. {@code prevObject} is the state before
 * the change, when the store still knew it.
 */
public record WatchEvent(Type type, long revision, String key, ObjectNode object, ObjectNode prevObject) {

    public enum Type { ADDED, MODIFIED, DELETED }
}
