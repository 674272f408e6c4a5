package io.cybernetes.store;

import tools.jackson.databind.node.ObjectNode;

import java.util.List;
import java.util.Optional;

/**
 * The revisioned object store. Every write gets the next global revision, assigned in
 * commit order; reads of single objects are consistent, lists and watches come from
 * the per-process watch cache. Keys are opaque strings; values are JSON objects whose
 * {@code metadata.resourceVersion} the store stamps with the revision.
 */
public interface Store {

    /** Creates the key; {@link StorageException.Code#KEY_EXISTS} when it exists. */
    StoredObject create(String key, ObjectNode value);

    /** The current version, read from the database (not the cache). */
    Optional<StoredObject> get(String key);

    /**
     * Replaces the value. {@code expectedModRevision} &gt; 0 and {@code expectedUid} non-null are
     * preconditions: a mismatch is {@link StorageException.Code#CONFLICT}.
     */
    StoredObject update(String key, ObjectNode value, long expectedModRevision, String expectedUid);

    /** Deletes the key under the same preconditions as update; returns the final state. */
    StoredObject delete(String key, long expectedModRevision, String expectedUid);

    /**
     * The latest version this process's watch cache holds, without a database round trip;
     * it may trail a write made a moment ago, so absence is only a hint.
     */
    Optional<StoredObject> getCached(String key);

    ListResult list(ListRequest request);

    /**
     * Events for keys under {@code prefix} with a revision greater than {@code afterRevision}.
     * {@link StorageException.Code#EXPIRED} when that revision has been compacted.
     */
    Watch watch(String prefix, long afterRevision);

    /** How many objects there are under the key prefix now, as this process's watch cache has them. */
    long count(String prefix);

    /** The latest committed revision, read from the database. */
    long currentRevision();

    /**
     * Null while the database answers (it was last reached within the health window, about
     * two seconds: the store asks it every poll interval), else what went wrong: readiness
     * turns on it.
     */
    String databaseProblem();

    /** The revision the watch cache has reached in this process. */
    long cachedRevision();

    /** Revisions at or below this one may have been compacted away. */
    long compactedRevision();

    /**
     * The retained changes of one key, oldest first (for history views): each with its type
     * and revision, the object as it was after it (for DELETED, as it was when deleted).
     * Changes at or below {@link #compactedRevision()} that a later one superseded are gone.
     */
    List<WatchEvent> history(String key);
}
