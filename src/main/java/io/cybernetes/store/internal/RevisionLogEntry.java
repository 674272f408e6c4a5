package io.cybernetes.store.internal;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A row of the revision log, for the read paths that are not hot (history). */
@Entity
@Table(name = "kv_log")
class RevisionLogEntry {

    @Id
    private long revision;

    @Column(name = "obj_key")
    private String key;

    @Column(name = "event_type")
    private String eventType;

    @Column(name = "create_revision")
    private long createRevision;

    @Column(name = "prev_revision")
    private Long prevRevision;

    @Column(name = "created_at")
    private long createdAt;

    @Column(name = "obj_value", columnDefinition = "TEXT")
    private String value;

    protected RevisionLogEntry() {
    }

    long revision() {
        return revision;
    }

    String key() {
        return key;
    }

    String eventType() {
        return eventType;
    }

    long createRevision() {
        return createRevision;
    }

    String value() {
        return value;
    }
}
