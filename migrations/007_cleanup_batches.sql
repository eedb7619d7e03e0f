-- Up Migration
-- Cleanup batches whose work follows the batch, whatever the statistics. A batch of
-- cleanupOldJobs takes the oldest finished jobs in the order of the finished-jobs index and stops
-- at the batch size. Written inline, the planner could also read a bitmap of every finished job
-- (and sort it, or keep the first found); right after a burst of adds or finishes, before
-- ANALYZE, it did, and every batch read every finished job: work growing with the backlog, batch
-- after batch. Here sequential scans, bitmap scans and sorts are off, so the only plan left is the
-- ordered walk of job_queue_finished_idx that stops at the limit. The search_path is pinned.
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

-- Up to p_limit finished jobs (completed, cancelled, failed with no retry left) last updated
-- before p_before, oldest first, locked (FOR UPDATE SKIP LOCKED: a job another transaction is
-- changing is left for a later batch).
CREATE FUNCTION job_queue_cleanup_batch(p_before TIMESTAMPTZ, p_limit INTEGER) RETURNS SETOF BIGINT
LANGUAGE sql VOLATILE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
SET jit = off
SET search_path FROM CURRENT
AS $$
  SELECT j.id FROM job_queue j
  WHERE j.status IN ('completed', 'cancelled', 'failed')
    AND (j.status <> 'failed' OR j.next_attempt_at IS NULL)
    AND j.updated_at < p_before
  ORDER BY j.updated_at
  LIMIT p_limit
  FOR UPDATE SKIP LOCKED
$$;

-- Down Migration
DROP FUNCTION job_queue_cleanup_batch(TIMESTAMPTZ, INTEGER);
