-- The revisioned store: one global revision counter, an append-only revision log and
-- the current objects. The same file runs on H2 and PostgreSQL.

CREATE TABLE revision_counter (
    id INT PRIMARY KEY,
    revision BIGINT NOT NULL,
    compacted_revision BIGINT NOT NULL
);

INSERT INTO revision_counter (id, revision, compacted_revision) VALUES (1, 1, 0);

CREATE TABLE kv_log (
    revision BIGINT PRIMARY KEY,
    obj_key VARCHAR(512) NOT NULL,
    event_type VARCHAR(8) NOT NULL,
    create_revision BIGINT NOT NULL,
    prev_revision BIGINT,
    created_at BIGINT NOT NULL,
    obj_value TEXT NOT NULL
);

CREATE INDEX kv_log_key_revision ON kv_log (obj_key, revision);
CREATE INDEX kv_log_created_at ON kv_log (created_at);

CREATE TABLE kv_current (
    obj_key VARCHAR(512) PRIMARY KEY,
    uid VARCHAR(64),
    create_revision BIGINT NOT NULL,
    mod_revision BIGINT NOT NULL,
    obj_value TEXT NOT NULL
);

CREATE INDEX kv_current_mod_revision ON kv_current (mod_revision);
