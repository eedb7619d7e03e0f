-- Up Migration
-- Cheaper adds. First, a job without tags (most jobs) no longer writes an entry into the two GIN
-- indexes of tags. A GIN index stores an "empty" entry for an empty array; no query needs it:
-- a tag filter (`tags @> X` or `tags && X` with X not empty) and a tag barrier never match a
-- job without tags, and they now say so (`tags <> '{}'`), which lets them use these indexes.
--
-- Plain CREATE INDEX: the runner applies each file in one transaction, where CREATE INDEX
-- CONCURRENTLY cannot run. Writes to job_queue wait while the two indexes are built, and writes
-- to job_events while its primary key is rebuilt.
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

DROP INDEX job_queue_tags_idx;
CREATE INDEX job_queue_tags_idx ON job_queue USING GIN (tags) WHERE tags <> '{}';
DROP INDEX job_queue_active_tags_idx;
CREATE INDEX job_queue_active_tags_idx ON job_queue USING GIN (tags) WITH (fastupdate = off)
  WHERE status IN ('pending', 'processing', 'waiting') AND tags <> '{}';

-- As in 001, with the condition that lets it use the index above (p_tags is never empty).
CREATE OR REPLACE FUNCTION job_queue_tag_barrier_clear(p_tags TEXT[], p_self BIGINT) RETURNS BOOLEAN
LANGUAGE sql STABLE PARALLEL SAFE
SET enable_seqscan = off
SET jit = off
SET search_path FROM CURRENT
AS $$
  SELECT NOT EXISTS (
    SELECT 1 FROM job_queue o
    WHERE o.tags @> p_tags AND o.tags <> '{}' AND o.id <> p_self
      AND o.status IN ('pending', 'processing', 'waiting'))
$$;

-- Events: two btrees instead of three. Every reader finds events by job (getJobEvents, the
-- deletes of a job's events) or by age (the cleanup); none by id alone, which the sequence keeps
-- unique anyway. So the primary key becomes (job_id, id) and replaces job_events_job_id_idx:
-- one index entry less for every event written (added, claimed, completed...).
-- The index on created_at stays a btree. A BRIN index would be smaller, but once the cleanup has
-- deleted old events, new ones reuse their pages while BRIN keeps the old ranges' minimum, so
-- each cleanup would recheck every reused page: work growing with the table, not the events
-- it deletes.
ALTER TABLE job_events DROP CONSTRAINT job_events_pkey;
DROP INDEX job_events_job_id_idx;
ALTER TABLE job_events ADD CONSTRAINT job_events_pkey PRIMARY KEY (job_id, id);

-- Down Migration
ALTER TABLE job_events DROP CONSTRAINT job_events_pkey;
ALTER TABLE job_events ADD CONSTRAINT job_events_pkey PRIMARY KEY (id);
CREATE INDEX job_events_job_id_idx ON job_events (job_id, id);
CREATE OR REPLACE FUNCTION job_queue_tag_barrier_clear(p_tags TEXT[], p_self BIGINT) RETURNS BOOLEAN
LANGUAGE sql STABLE PARALLEL SAFE
SET enable_seqscan = off
SET jit = off
SET search_path FROM CURRENT
AS $$
  SELECT NOT EXISTS (
    SELECT 1 FROM job_queue o
    WHERE o.tags @> p_tags AND o.id <> p_self AND o.status IN ('pending', 'processing', 'waiting'))
$$;
DROP INDEX job_queue_active_tags_idx;
CREATE INDEX job_queue_active_tags_idx ON job_queue USING GIN (tags) WITH (fastupdate = off)
  WHERE status IN ('pending', 'processing', 'waiting');
DROP INDEX job_queue_tags_idx;
CREATE INDEX job_queue_tags_idx ON job_queue USING GIN (tags);
