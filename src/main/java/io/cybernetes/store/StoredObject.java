package io.cybernetes.store;

import tools.jackson.databind.node.ObjectNode;

/**
 * One version of an object as the store holds it. {@code value} carries
 * {@code metadata.resourceVersion} equal to {@code modRevision}; {@code json} is its text when known. Values handed out by
 * lists and watches are shared: treat them as read-only. {@code stale}: the database holds it in a form the store no
 * longer writes (encrypted with a key that is not the first, say), so an update that changes nothing still rewrites it.
 */
public record StoredObject(String key, long createRevision, long modRevision, ObjectNode value, String json,
                           boolean stale) {

    public StoredObject(String key, long createRevision, long modRevision, ObjectNode value, String json) {
        this(key, createRevision, modRevision, value, json, false);
    }

    public StoredObject(String key, long createRevision, long modRevision, ObjectNode value) {
        this(key, createRevision, modRevision, value, null);
    }

    /** The value as JSON text: the stored text when the store has it, so it is not written twice. */
    public String jsonText() {
        return json != null ? json : io.cybernetes.api.Json.write(value);
    }
}
