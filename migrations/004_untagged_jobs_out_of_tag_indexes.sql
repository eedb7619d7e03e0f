-- Up Migration
-- Cheaper adds: a job without tags (most jobs) no longer writes an entry into the two GIN
-- indexes of tags. A GIN index stores an "empty" entry for an empty array; no query needs it:
-- a tag filter (`tags @> X` or `tags && X` with X not empty) and a tag barrier never match a
-- job without tags, and they now say so (`tags <> '{}'`), which lets them use these indexes.
--
-- Plain CREATE INDEX: the runner applies each file in one transaction, where CREATE INDEX
-- CONCURRENTLY cannot run. Writes to job_queue wait while the two indexes are built.
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

-- Down Migration
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
