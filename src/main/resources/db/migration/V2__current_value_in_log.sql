-- The current objects' values are read from the revision log (the row of their mod_revision, which
-- compaction never removes): each write then stores its value once instead of twice. The same file runs
-- on H2 and PostgreSQL.

ALTER TABLE kv_current DROP COLUMN obj_value;
