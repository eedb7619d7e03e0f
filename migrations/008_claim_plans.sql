-- Up Migration
-- The claim's reads of the two lanes, with plans that do not depend on statistics. A table of a
-- few thousand jobs (each claimed and completed leaves dead row versions until vacuum) looks
-- small to the planner, most of all before its first ANALYZE, so the claim read the lanes with
-- sequential scans and sorts: every claim read every row, and its cost grew with finished jobs.
-- Here sequential and bitmap scans are off, so each lane is read through its partial index, in
-- claim order, and only as far as needed. PL/pgSQL, so a session plans each query once, not on
-- every call. Each returns the row addresses (ctid): the claim locks and updates those rows by
-- address (TID scans), which no statistics can turn into a scan of the table.
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

-- The head of the due lane in claim order (priority DESC, created_at, id): at most p_limit jobs,
-- of the types p_types (each type's head) or of any type when NULL. Reads without locks.
CREATE FUNCTION job_queue_due_head(p_types TEXT[], p_limit INTEGER)
RETURNS TABLE (id BIGINT, group_id TEXT, priority INTEGER, created_at TIMESTAMPTZ, ready_at TIMESTAMPTZ,
  depends_on_job_ids BIGINT[], depends_on_tags TEXT[], row_ctid TID)
LANGUAGE plpgsql STABLE PARALLEL SAFE ROWS 50
SET enable_seqscan = off
SET enable_bitmapscan = off
SET jit = off
SET search_path FROM CURRENT
AS $$
#variable_conflict use_column
BEGIN
  IF p_types IS NULL THEN
    RETURN QUERY
      SELECT j.id, j.group_id, j.priority, j.created_at, j.ready_at, j.depends_on_job_ids, j.depends_on_tags, j.ctid
      FROM job_queue j
      WHERE j.ready_at <= COALESCE(j.promoted_at, j.created_at) AND NOT j.parked
      ORDER BY j.priority DESC, j.created_at, j.id
      LIMIT p_limit;
  ELSE
    -- One ordered walk of job_queue_due_by_type_idx per wanted type.
    RETURN QUERY
      SELECT d.* FROM (SELECT DISTINCT w FROM unnest(p_types) AS w) AS wanted(job_type)
      CROSS JOIN LATERAL (
        SELECT j.id, j.group_id, j.priority, j.created_at, j.ready_at, j.depends_on_job_ids, j.depends_on_tags, j.ctid
        FROM job_queue j
        WHERE j.job_type = wanted.job_type AND j.ready_at <= COALESCE(j.promoted_at, j.created_at) AND NOT j.parked
        ORDER BY j.priority DESC, j.created_at, j.id
        LIMIT p_limit
      ) d;
  END IF;
END
$$;

-- The addresses of the jobs of the scheduled lane that are due at p_now (job_queue_scheduled_idx
-- up to p_now). Reads without locks; the claim locks them by address and checks them again.
CREATE FUNCTION job_queue_became_due(p_now TIMESTAMPTZ) RETURNS SETOF TID
LANGUAGE plpgsql STABLE PARALLEL SAFE ROWS 10
SET enable_seqscan = off
SET enable_bitmapscan = off
SET jit = off
SET search_path FROM CURRENT
AS $$
BEGIN
  RETURN QUERY
    SELECT j.ctid FROM job_queue j
    WHERE j.ready_at > COALESCE(j.promoted_at, j.created_at) AND j.ready_at <= p_now;
END
$$;

-- The completion's wake-up hint of migration 005, unchanged but in PL/pgSQL: as an SQL function
-- it was planned again on every call (about a third of a millisecond per completion statement).
CREATE OR REPLACE FUNCTION job_queue_has_pending_dependents(p_ids BIGINT[], p_tags TEXT[]) RETURNS BOOLEAN
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET enable_seqscan = off
SET enable_indexscan = off
SET jit = off
SET search_path FROM CURRENT
AS $$
BEGIN
  RETURN EXISTS (
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
    WHERE tagged.status = 'pending');
END
$$;

-- Down Migration
CREATE OR REPLACE FUNCTION job_queue_has_pending_dependents(p_ids BIGINT[], p_tags TEXT[]) RETURNS BOOLEAN
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
DROP FUNCTION job_queue_became_due(TIMESTAMPTZ);
DROP FUNCTION job_queue_due_head(TEXT[], INTEGER);
