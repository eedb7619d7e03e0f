-- Up Migration
-- The wake-up hint of a completion: does a pending job name one of p_ids in dependsOn.jobIds,
-- or share one of p_tags through dependsOn.tags? Its cost follows the jobs that name those ids
-- or tags, never the pending jobs: each test reads only the GIN index of jobs with such
-- dependencies. Written inline, the planner walked every pending job through the status index
-- when statistics were taken while few jobs were pending (right after a burst of adds), or
-- scanned the whole table when the status test was removed. Here sequential and plain index
-- scans are off, so the only plan left is a bitmap scan of the GIN index; the status test sits
-- behind OFFSET 0, so no index on status can serve the scan itself. The search_path is pinned.
CREATE FUNCTION job_queue_has_pending_dependents(p_ids BIGINT[], p_tags TEXT[]) RETURNS BOOLEAN
LANGUAGE sql STABLE PARALLEL SAFE
SET enable_seqscan = off
SET enable_indexscan = off
SET jit = off
SET search_path FROM CURRENT
AS $$
  SELECT EXISTS (
    SELECT 1 FROM (
      SELECT d.status FROM job_queue d
      WHERE d.depends_on_job_ids IS NOT NULL AND d.depends_on_job_ids && p_ids
      OFFSET 0
    ) named
    WHERE named.status = 'pending')
  OR EXISTS (
    SELECT 1 FROM (
      SELECT d.status FROM job_queue d
      WHERE d.depends_on_tags IS NOT NULL AND d.depends_on_tags && p_tags
      OFFSET 0
    ) tagged
    WHERE tagged.status = 'pending')
$$;

-- Down Migration
DROP FUNCTION job_queue_has_pending_dependents(BIGINT[], TEXT[]);
