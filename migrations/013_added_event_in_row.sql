-- Up Migration
-- The `added` event of a job added without tags, idempotency key or prerequisites (the common
-- add, through the plain add statements) is kept in the job's row instead of a row of
-- job_events: its id (drawn from job_events' own sequence, so it orders with the job's other
-- events as before), its time (the job's created_at, set by the same add) and its metadata
-- (the job's type, no tags, no key: all that such an event ever held). An add then writes one
-- row and its index entries instead of two rows. getJobEvents reads the event from the row,
-- cleanupOldJobEvents clears it once it is older than the cutoff (found through the partial
-- index below), and removing the job removes it. Jobs added before this migration, and jobs
-- with tags, a key or prerequisites, keep their `added` event in job_events.
-- Nullable and without a default: adding the column rewrites no row. No job has the event in
-- its row yet, so the index starts empty.
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

ALTER TABLE job_queue ADD COLUMN added_event_id bigint;
CREATE INDEX job_queue_added_event_idx ON job_queue (created_at) WHERE added_event_id IS NOT NULL;

-- The cleanup's batch: the row addresses of up to p_limit jobs added before p_before that keep
-- their `added` event, oldest first, read in the order of job_queue_added_event_idx and no
-- further, each locked for the update that follows. A job another transaction holds (a claim,
-- a completion, an edit) is skipped and left to the next cleanup, so the cleanup never waits
-- for a job's lock, and never takes part in a deadlock with a statement that locks jobs in
-- another order. A function, so the walk of that index is the only plan, whatever the
-- statistics: written inline, right after a bulk add (before ANALYZE) the planner read and
-- sorted the whole table. The search_path is pinned to this schema.
CREATE FUNCTION job_queue_added_events_before(p_before TIMESTAMPTZ, p_limit INTEGER)
RETURNS SETOF tid
LANGUAGE sql VOLATILE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
SET jit = off
SET search_path FROM CURRENT
AS $$
  SELECT ctid FROM job_queue
  WHERE added_event_id IS NOT NULL AND created_at < p_before
  ORDER BY created_at
  LIMIT p_limit
  FOR UPDATE SKIP LOCKED
$$;

-- Down Migration
-- The events kept in rows become rows of job_events again, with their ids: nothing is lost.
INSERT INTO job_events (id, job_id, event_type, created_at, metadata)
SELECT added_event_id, id, 'added', created_at, NULL FROM job_queue WHERE added_event_id IS NOT NULL;
DROP FUNCTION job_queue_added_events_before(TIMESTAMPTZ, INTEGER);
DROP INDEX job_queue_added_event_idx;
ALTER TABLE job_queue DROP COLUMN added_event_id;
