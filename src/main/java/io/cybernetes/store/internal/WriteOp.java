package io.cybernetes.store.internal;

import io.cybernetes.store.StoredObject;
import tools.jackson.databind.node.ObjectNode;

import java.util.concurrent.CompletableFuture;

/** One write waiting for its batch: what to do and where to report the outcome. */
record WriteOp(Kind kind, String key, ObjectNode value, long expectedModRevision, String expectedUid,
               CompletableFuture<StoredObject> result) {

    enum Kind { CREATE, UPDATE, DELETE }

    static WriteOp of(Kind kind, String key, ObjectNode value, long expectedModRevision, String expectedUid) {
        return new WriteOp(kind, key, value, expectedModRevision, expectedUid, new CompletableFuture<>());
    }
}
