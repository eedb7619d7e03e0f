-- Up Migration
-- The cleanup of the `added` events kept in job rows (migration 013) no longer writes those
-- rows: it raises a floor instead. A job's in-row event is removed once the job's id is below
-- `below_job_id` and it was added before `added_before`; cleanupOldJobEvents walks the jobs
-- upward from the floor in id order (the primary key), moves the floor up to the first job
-- added at or after its cutoff, and records that cutoff. Ids are drawn as jobs are added, so
-- every job below the floor was added before a job older than the cutoff: its event is older
-- than the cutoff too. (The time condition keeps the events of jobs whose ids start again
-- below the floor, should the id sequence ever be reset.) The cleanup then reads each job
-- once, locks and writes none of them (one row updated per batch, below), and
-- job_queue_added_event_idx, which every add and every later update of such a job wrote an
-- entry into, is no longer needed.
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

CREATE TABLE job_queue_added_events_floor (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  below_job_id bigint NOT NULL,
  added_before timestamptz NOT NULL
);
-- Every event kept in a row so far is alive (the cleanup of 013 cleared the old ones).
INSERT INTO job_queue_added_events_floor (below_job_id, added_before) VALUES (0, '-infinity');

-- One batch of the cleanup: walks up to p_limit jobs upward from the floor in the order of the
-- primary key, stopping at the first job added at or after p_before, and raises the floor to
-- it (or past the last job walked), recording p_before with it. Returns how many of the walked jobs kept their event
-- (`passed`: the events removed) and whether the walk stopped at p_limit (`more`). The floor's
-- row is locked first, so two cleanups take turns; no job row is locked or written. A
-- function, so the walk stops at the first recent job whatever the planner would estimate.
CREATE FUNCTION job_queue_added_events_cleanup(
  p_before TIMESTAMPTZ, p_limit INTEGER, OUT passed INTEGER, OUT more BOOLEAN
)
LANGUAGE plpgsql VOLATILE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
SET jit = off
SET search_path FROM CURRENT
AS $$
DECLARE
  floor_id bigint;
  next_floor bigint;
  walked integer := 0;
  job record;
BEGIN
  passed := 0;
  more := false;
  SELECT below_job_id INTO floor_id FROM job_queue_added_events_floor FOR UPDATE;
  next_floor := floor_id;
  FOR job IN
    SELECT id, created_at, added_event_id IS NOT NULL AS kept FROM job_queue WHERE id >= floor_id ORDER BY id
  LOOP
    EXIT WHEN job.created_at >= p_before;
    IF job.kept THEN passed := passed + 1; END IF;
    next_floor := job.id + 1;
    walked := walked + 1;
    IF walked >= p_limit THEN
      more := true;
      EXIT;
    END IF;
  END LOOP;
  IF next_floor > floor_id THEN
    UPDATE job_queue_added_events_floor
    SET below_job_id = next_floor, added_before = GREATEST(added_before, p_before);
  END IF;
END
$$;

DROP FUNCTION job_queue_added_events_before(TIMESTAMPTZ, INTEGER);
DROP INDEX job_queue_added_event_idx;

-- Down Migration
-- The events below the floor were removed: clear them in their rows, as 013's cleanup did, so
-- that 013's index and cleanup see only the live ones.
UPDATE job_queue j SET added_event_id = NULL
FROM job_queue_added_events_floor f
WHERE j.added_event_id IS NOT NULL AND j.id < f.below_job_id AND j.created_at < f.added_before;
DROP FUNCTION job_queue_added_events_cleanup(TIMESTAMPTZ, INTEGER);
DROP TABLE job_queue_added_events_floor;
CREATE INDEX job_queue_added_event_idx ON job_queue (created_at) WHERE added_event_id IS NOT NULL;
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
