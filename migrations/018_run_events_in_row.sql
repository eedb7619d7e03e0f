-- Up Migration
-- A job keeps the `processing` event of its current attempt and its `completed` event in its own
-- row instead of rows of job_events, as it keeps its `added` event since migration 013: each id is
-- drawn from job_events' own sequence (so the events keep their order among the job's others),
-- the `processing` event's time is `processing_event_at`, the `completed` event's the job's
-- `completed_at`, and neither has metadata (none ever had). A claim and a completion then write
-- one row each instead of two, and no index entry of job_events. getJobEvents reads them from
-- the row. A job that leaves processing other than completed (it fails, is reclaimed or waits)
-- writes its kept `processing` event out as a row of job_events, with its id and time, so its
-- next attempt keeps its own. Jobs claimed or completed before this migration keep their events
-- in job_events.
-- The cleanup removes the kept events of finished jobs without writing their rows: below the
-- floor of job_queue_run_events_floor (by finish time, then id) they are gone. It walks
-- job_queue_finished_idx upward from the floor, which this migration rebuilds on (updated_at, id)
-- so that a walk can stop between two jobs finished at the same instant and go on from there.
-- Rebuilding the index locks the table against writes while it is built.
-- Nullable and without a default: adding the columns rewrites no row.
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

ALTER TABLE job_queue
  ADD COLUMN processing_event_id bigint,
  ADD COLUMN processing_event_at timestamptz,
  ADD COLUMN completed_event_id bigint;

DROP INDEX job_queue_finished_idx;
CREATE INDEX job_queue_finished_idx ON job_queue (updated_at, id)
  WHERE status IN ('completed', 'cancelled', 'failed');

-- The events kept in the row of a finished job (status completed, cancelled or failed) whose
-- (updated_at, id) is below (below_finished_at, below_job_id) are removed.
CREATE TABLE job_queue_run_events_floor (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  below_finished_at timestamptz NOT NULL,
  below_job_id bigint NOT NULL
);
INSERT INTO job_queue_run_events_floor (below_finished_at, below_job_id) VALUES ('-infinity', 0);

-- One batch of the cleanup: walks up to p_limit finished jobs upward from the floor in the order
-- of job_queue_finished_idx, stopping at the first one finished at or after p_before, and raises
-- the floor past the last one walked. Returns how many events the walked jobs kept in their rows
-- (`passed`: the events removed) and whether the walk stopped at p_limit (`more`). The floor's
-- row is locked first, so two cleanups take turns; no job row is locked or written. A function,
-- so the walk stops at the limit whatever the planner would estimate.
CREATE FUNCTION job_queue_run_events_cleanup(
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
  floor_at timestamptz;
  floor_id bigint;
  next_at timestamptz;
  next_id bigint;
  walked integer := 0;
  job record;
BEGIN
  passed := 0;
  more := false;
  SELECT below_finished_at, below_job_id INTO floor_at, floor_id FROM job_queue_run_events_floor FOR UPDATE;
  next_at := floor_at;
  next_id := floor_id;
  FOR job IN
    SELECT id, updated_at,
      (processing_event_id IS NOT NULL)::integer + (completed_event_id IS NOT NULL)::integer AS kept
    FROM job_queue
    WHERE status IN ('completed', 'cancelled', 'failed')
      AND (updated_at, id) >= (floor_at, floor_id) AND updated_at < p_before
    ORDER BY updated_at, id
  LOOP
    passed := passed + job.kept;
    next_at := job.updated_at;
    next_id := job.id + 1;
    walked := walked + 1;
    IF walked >= p_limit THEN
      more := true;
      EXIT;
    END IF;
  END LOOP;
  IF walked > 0 THEN
    UPDATE job_queue_run_events_floor SET below_finished_at = next_at, below_job_id = next_id;
  END IF;
END
$$;

-- Down Migration
-- The events kept in rows and not below the floor become rows of job_events again, with their
-- ids: nothing the history shows is lost.
INSERT INTO job_events (id, job_id, event_type, created_at, metadata)
SELECT e.id, e.job_id, e.event_type, e.created_at, NULL FROM (
  SELECT j.processing_event_id AS id, j.id AS job_id, 'processing' AS event_type, j.processing_event_at AS created_at
  FROM job_queue j, job_queue_run_events_floor f
  WHERE j.processing_event_id IS NOT NULL
    AND NOT (j.status IN ('completed', 'cancelled', 'failed') AND (j.updated_at, j.id) < (f.below_finished_at, f.below_job_id))
  UNION ALL
  SELECT j.completed_event_id, j.id, 'completed', j.completed_at
  FROM job_queue j, job_queue_run_events_floor f
  WHERE j.completed_event_id IS NOT NULL
    AND NOT (j.status IN ('completed', 'cancelled', 'failed') AND (j.updated_at, j.id) < (f.below_finished_at, f.below_job_id))
) e;
DROP FUNCTION job_queue_run_events_cleanup(TIMESTAMPTZ, INTEGER);
DROP TABLE job_queue_run_events_floor;
DROP INDEX job_queue_finished_idx;
CREATE INDEX job_queue_finished_idx ON job_queue (updated_at)
  WHERE status IN ('completed', 'cancelled', 'failed');
ALTER TABLE job_queue
  DROP COLUMN processing_event_id,
  DROP COLUMN processing_event_at,
  DROP COLUMN completed_event_id;
