-- Up Migration
-- Cleanup batches whose work follows the batch, whatever the statistics. A batch takes the
-- oldest finished jobs (or events) in the order of their age index and stops at the batch size.
-- Written inline, `ORDER BY ... LIMIT` leaves the planner a second plan: a bitmap of every match,
-- then a sort. Right after a burst of adds or finishes, before ANALYZE, it took the matches for
-- few and chose that plan, which reads every finished job (or old event) in every batch: work
-- growing with the backlog, batch after batch. Here sequential scans, bitmap scans and sorts are
-- off, so the only plan left is the ordered walk of the age index that stops at the limit. The
-- search_path is pinned.
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

-- The row addresses of up to p_limit events created before p_before, oldest first.
CREATE FUNCTION job_events_cleanup_batch(p_before TIMESTAMPTZ, p_limit INTEGER) RETURNS SETOF TID
LANGUAGE sql STABLE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
SET jit = off
SET search_path FROM CURRENT
AS $$
  SELECT e.ctid FROM job_events e WHERE e.created_at < p_before ORDER BY e.created_at LIMIT p_limit
$$;

-- Down Migration
DROP FUNCTION job_events_cleanup_batch(TIMESTAMPTZ, INTEGER);
DROP FUNCTION job_queue_cleanup_batch(TIMESTAMPTZ, INTEGER);
