-- Up Migration
-- Whether a level of the cascade has anything to cancel: a pending or waiting job that lists one
-- of the jobs p_ids among its prerequisites, or whose tag barrier their tags cover. The
-- cascade's own statement (cascadeLevelSql) is planned for its values on every call, which made
-- it most of the server's work of a job's final failure, though almost every failure has no
-- dependent at all. The caller asks this first, as a statement of its own after the jobs were
-- ended (so its snapshot sees what the cascade's would), and runs the cascade only when it says
-- yes. Its predicates are the cascade's, so it never says no where the cascade would cancel a
-- job; it reads the GIN indexes of the two dependency lists as a bitmap, with one plan per
-- session whatever the values, like the completion's wake-up hint (migrations 008 and 016).
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

CREATE FUNCTION job_queue_has_live_dependents(p_ids BIGINT[]) RETURNS BOOLEAN
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

-- Down Migration
DROP FUNCTION job_queue_has_live_dependents(BIGINT[]);
