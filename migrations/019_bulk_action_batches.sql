-- Up Migration
-- Bulk actions by filter (retryAllFailedJobs, cancelAllUpcomingJobs, editAllPendingJobs) work in
-- batches, each its own short transaction, and the cancel's cascade is linear in the jobs it ends.
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

-- The ids of the next p_limit jobs of status p_status below id p_before, newest first: one batch
-- of a bulk action. Read in the order of job_queue_status_idx and no further, whatever the
-- statistics (sequential scans, bitmap scans and sorts are off, as in migration 007's cleanup
-- batch). The status is bounded as a range, so (status, id) is an order only that index yields:
-- with `status = p_status` the planner may walk the primary key down instead, past every newer
-- job of another status. Not locked: the action locks the jobs it changes and checks them again.
CREATE FUNCTION job_queue_status_batch(p_status TEXT, p_before BIGINT, p_limit INTEGER) RETURNS SETOF BIGINT
LANGUAGE sql STABLE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
SET jit = off
SET search_path FROM CURRENT
AS $$
  SELECT j.id FROM job_queue j
  WHERE j.status >= p_status AND (j.status, j.id) < (p_status, p_before)
  ORDER BY j.status DESC, j.id DESC
  LIMIT p_limit
$$;

-- The cascade's hint (migration 017) reads the dependents of the ended jobs p_ids from the GIN
-- index of depends_on_job_ids in slices of at most 100 ids, one index scan per slice. One scan
-- with every id cost the square of their number: a GIN scan compares each entry of its query
-- with every entry before it, to merge duplicates, before it reads the index at all. At 100,000
-- ids that was about 13 s of one CPU, even with no dependent anywhere; in slices it is about
-- 0.1 s. The tag part is unchanged: it reads the ended jobs by primary key.

CREATE OR REPLACE FUNCTION job_queue_has_live_dependents(p_ids BIGINT[]) RETURNS BOOLEAN
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET enable_seqscan = off
SET enable_indexscan = off
SET jit = off
SET plan_cache_mode = force_generic_plan
SET search_path FROM CURRENT
AS $$
DECLARE
  ended_tags TEXT[];
BEGIN
  IF EXISTS (
    SELECT 1 FROM generate_series(1, cardinality(p_ids), 100) AS slice(first)
    CROSS JOIN LATERAL (
      SELECT d.status FROM job_queue d
      WHERE d.depends_on_job_ids IS NOT NULL AND d.depends_on_job_ids && p_ids[slice.first:slice.first + 99]
      OFFSET 0
    ) named
    WHERE named.status IN ('pending', 'waiting')
  ) THEN
    RETURN TRUE;
  END IF;
  SELECT array_agg(DISTINCT tag) INTO ended_tags
  FROM job_queue p, unnest(p.tags) AS tag
  WHERE p.id = ANY(p_ids) AND p.tags <> '{}';
  IF ended_tags IS NULL THEN
    RETURN FALSE;
  END IF;
  RETURN EXISTS (
    SELECT 1 FROM (
      SELECT d.status FROM job_queue d
      WHERE d.depends_on_tags IS NOT NULL AND d.depends_on_tags <@ ended_tags
      OFFSET 0
    ) tagged
    WHERE tagged.status IN ('pending', 'waiting'));
END
$$;

-- Down Migration
DROP FUNCTION job_queue_status_batch(TEXT, BIGINT, INTEGER);
CREATE OR REPLACE FUNCTION job_queue_has_live_dependents(p_ids BIGINT[]) RETURNS BOOLEAN
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET enable_seqscan = off
SET enable_indexscan = off
SET jit = off
SET plan_cache_mode = force_generic_plan
SET search_path FROM CURRENT
AS $$
DECLARE
  ended_tags TEXT[];
BEGIN
  IF EXISTS (
    SELECT 1 FROM (
      SELECT d.status FROM job_queue d
      WHERE d.depends_on_job_ids IS NOT NULL AND d.depends_on_job_ids && p_ids
      OFFSET 0
    ) named
    WHERE named.status IN ('pending', 'waiting')
  ) THEN
    RETURN TRUE;
  END IF;
  SELECT array_agg(DISTINCT tag) INTO ended_tags
  FROM job_queue p, unnest(p.tags) AS tag
  WHERE p.id = ANY(p_ids) AND p.tags <> '{}';
  IF ended_tags IS NULL THEN
    RETURN FALSE;
  END IF;
  RETURN EXISTS (
    SELECT 1 FROM (
      SELECT d.status FROM job_queue d
      WHERE d.depends_on_tags IS NOT NULL AND d.depends_on_tags <@ ended_tags
      OFFSET 0
    ) tagged
    WHERE tagged.status IN ('pending', 'waiting'));
END
$$;
