package io.cybernetes.store;

import tools.jackson.databind.node.ObjectNode;

/**
 * One change in revision order. For DELETED, {@code object} is the last state of the
 * object stamped with the deletion revision. {@code prevObject} is the state before
 * the change, when the store still knew it; {@code json} is the object's text when known.
 */
public record WatchEvent(Type type, long revision, String key, ObjectNode object, ObjectNode prevObject, String json) {

    public WatchEvent(Type type, long revision, String key, ObjectNode object, ObjectNode prevObject) {
        this(type, revision, key, object, prevObject, null);
    }

    /** The object as JSON text, serialised once for every watcher. */
    public String jsonText() {
        return json != null ? json : io.cybernetes.api.Json.write(object);
    }

    public enum Type { ADDED, MODIFIED, DELETED }
}
