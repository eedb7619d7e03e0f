-- Up Migration
-- Parks due jobs that a claim found blocked, so the cost of a claim does not grow with the jobs
-- waiting for a prerequisite (dependsOn.jobIds), behind a tag barrier (dependsOn.tags) or in a
-- full group (groupConcurrency).
--
-- A claim examines a bounded window at the head of the due lane. A job of that window it finds
-- blocked gets `parked` (and a `parked_reason`), which takes it out of the due lane, only after the
-- claim has locked (FOR SHARE) a job that blocks it and seen that job's latest version still
-- blocking: that job cannot end before the claim commits. The statement that ends a blocker
-- (a prerequisite completes, a barrier's last holder leaves pending, processing or waiting, a
-- group's processing job leaves processing) puts the jobs it held back into the due lane again,
-- in the same statement, through the trigger below. So a parked job is never left behind.
--
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

-- A flag for the lane (a boolean: without statistics the planner takes `NOT parked` for half of
-- the rows, not the handful it assumes of an IS NULL test) and the reason, for the trigger.
ALTER TABLE job_queue ADD COLUMN parked BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE job_queue ADD COLUMN parked_reason TEXT
  CHECK (parked_reason IN ('prerequisites', 'tag_barrier', 'group_full'));

DROP INDEX job_queue_due_idx;
DROP INDEX job_queue_due_by_type_idx;
CREATE INDEX job_queue_due_idx ON job_queue (priority DESC, created_at, id)
  WHERE ready_at <= COALESCE(promoted_at, created_at) AND NOT parked;
CREATE INDEX job_queue_due_by_type_idx ON job_queue (job_type, priority DESC, created_at, id)
  WHERE ready_at <= COALESCE(promoted_at, created_at) AND NOT parked;
-- Whether any job is parked at all: the trigger's first, and usually last, question.
CREATE INDEX job_queue_parked_idx ON job_queue (id) WHERE parked;
-- A group's parked jobs, best first: one comes back per slot that frees.
CREATE INDEX job_queue_parked_group_idx ON job_queue (group_id, priority DESC, created_at, id)
  WHERE parked AND parked_reason = 'group_full';
-- The distinct barriers jobs are parked behind.
CREATE INDEX job_queue_parked_barrier_idx ON job_queue (depends_on_tags) WHERE parked AND parked_reason = 'tag_barrier';

-- The tag-barrier check answered NOT EXISTS with an index scan of every active job whenever a
-- barrier had few holders (the planner hopes for an early match): bitmap scans only, so it
-- reads the GIN entries of the barrier's tags.
ALTER FUNCTION job_queue_tag_barrier_clear(TEXT[], BIGINT) SET enable_indexscan = off;

-- Up to two active jobs carrying every tag of p_tags (bitmap scans only, as above).
CREATE FUNCTION job_queue_barrier_holders(p_tags TEXT[]) RETURNS BIGINT[]
LANGUAGE sql STABLE
SET enable_seqscan = off
SET enable_indexscan = off
SET jit = off
SET search_path FROM CURRENT
AS $$
  SELECT ARRAY(
    SELECT o.id FROM job_queue o
    WHERE o.tags @> p_tags AND o.tags <> '{}' AND o.status IN ('pending', 'processing', 'waiting') LIMIT 2)
$$;

-- True when a job other than p_self still blocks a due job, and this transaction holds a share
-- lock on the latest version of one such job (FOR SHARE SKIP LOCKED: a job another transaction
-- is changing is not counted, so the answer errs towards "not blocked"). p_reason says which
-- condition: the prerequisites p_ids not all completed, an active job carrying every tag of
-- p_tags, or at least p_limit processing jobs in group p_group (all of them locked).
CREATE FUNCTION job_queue_still_blocked(p_reason TEXT, p_self BIGINT, p_ids BIGINT[], p_tags TEXT[],
  p_group TEXT, p_limit INTEGER) RETURNS BOOLEAN
LANGUAGE sql VOLATILE
SET enable_seqscan = off
SET enable_indexscan = off
SET jit = off
SET search_path FROM CURRENT
AS $$
  SELECT CASE p_reason
    WHEN 'prerequisites' THEN EXISTS (
      SELECT 1 FROM job_queue p WHERE p.id = ANY(p_ids) AND p.status <> 'completed' FOR SHARE SKIP LOCKED)
    WHEN 'tag_barrier' THEN EXISTS (
      SELECT 1 FROM job_queue o
      WHERE o.tags @> p_tags AND o.tags <> '{}' AND o.id <> p_self AND o.status IN ('pending', 'processing', 'waiting')
      FOR SHARE SKIP LOCKED)
    WHEN 'group_full' THEN (
      SELECT count(*) FROM (
        SELECT 1 FROM job_queue g WHERE g.group_id = p_group AND g.status = 'processing' FOR SHARE SKIP LOCKED
      ) locked) >= p_limit
    ELSE false
  END
$$;

-- After every UPDATE of job_queue: the parked jobs whose blocker this statement ended go back
-- to the due lane. A barrier's jobs come back once no other active job carries its tags (under
-- a lock per barrier, so two holders ending at once cannot both leave it for the other); a
-- group gets back one parked job per slot that freed.
CREATE FUNCTION job_queue_unpark() RETURNS trigger
LANGUAGE plpgsql
SET enable_seqscan = off
SET jit = off
SET search_path FROM CURRENT
AS $$
DECLARE
  ended_tags TEXT[];
  barrier TEXT[];
  holders BIGINT[];
BEGIN
  -- Its own updates change no status or tags: nothing to do for them.
  IF pg_trigger_depth() > 1 OR NOT EXISTS (SELECT 1 FROM job_queue WHERE parked) THEN
    RETURN NULL;
  END IF;

  UPDATE job_queue d SET parked = false, parked_reason = NULL
  WHERE d.parked AND d.parked_reason = 'prerequisites' AND d.depends_on_job_ids IS NOT NULL
    AND d.depends_on_job_ids && ARRAY(
      SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE n.status = 'completed' AND o.status <> 'completed');

  UPDATE job_queue d SET parked = false, parked_reason = NULL
  WHERE d.id IN (
    SELECT w.id FROM (
      SELECT o.group_id, count(*) AS freed FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE o.status = 'processing' AND n.status <> 'processing' AND o.group_id IS NOT NULL
      GROUP BY o.group_id
    ) f
    CROSS JOIN LATERAL (
      SELECT p.id FROM job_queue p WHERE p.parked AND p.parked_reason = 'group_full' AND p.group_id = f.group_id
      ORDER BY p.priority DESC, p.created_at, p.id
      LIMIT f.freed
      FOR UPDATE SKIP LOCKED
    ) w);

  ended_tags := ARRAY(
    SELECT DISTINCT t FROM old_rows o JOIN new_rows n ON n.id = o.id, unnest(o.tags) AS t
    WHERE o.status IN ('pending', 'processing', 'waiting')
      AND (n.status NOT IN ('pending', 'processing', 'waiting') OR n.tags IS DISTINCT FROM o.tags));
  IF cardinality(ended_tags) = 0 THEN
    RETURN NULL;
  END IF;
  FOR barrier IN
    -- The distinct barriers of parked jobs, one index probe each.
    WITH RECURSIVE barriers(tags) AS (
      (SELECT d.depends_on_tags FROM job_queue d WHERE d.parked AND d.parked_reason = 'tag_barrier' ORDER BY d.depends_on_tags LIMIT 1)
      UNION ALL
      SELECT (SELECT d.depends_on_tags FROM job_queue d
              WHERE d.parked AND d.parked_reason = 'tag_barrier' AND d.depends_on_tags > b.tags ORDER BY d.depends_on_tags LIMIT 1)
      FROM barriers b WHERE b.tags IS NOT NULL
    )
    SELECT b.tags FROM barriers b WHERE b.tags IS NOT NULL AND b.tags <@ ended_tags
  LOOP
    PERFORM pg_advisory_xact_lock(hashtext('queuedev barrier'), hashtext(barrier::text));
    -- A new statement: it sees what other transactions that ended a holder of this barrier
    -- committed before the lock was granted.
    holders := job_queue_barrier_holders(barrier);
    UPDATE job_queue d SET parked = false, parked_reason = NULL
    WHERE d.parked AND d.parked_reason = 'tag_barrier' AND d.depends_on_tags = barrier
      AND (cardinality(holders) = 0 OR (cardinality(holders) = 1 AND d.id = holders[1]));
  END LOOP;
  RETURN NULL;
END
$$;

CREATE TRIGGER job_queue_unpark AFTER UPDATE ON job_queue
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION job_queue_unpark();

-- Down Migration
DROP TRIGGER job_queue_unpark ON job_queue;
DROP FUNCTION job_queue_unpark();
DROP FUNCTION job_queue_still_blocked(TEXT, BIGINT, BIGINT[], TEXT[], TEXT, INTEGER);
DROP FUNCTION job_queue_barrier_holders(TEXT[]);
ALTER FUNCTION job_queue_tag_barrier_clear(TEXT[], BIGINT) RESET enable_indexscan;
DROP INDEX job_queue_parked_barrier_idx;
DROP INDEX job_queue_parked_group_idx;
DROP INDEX job_queue_parked_idx;
DROP INDEX job_queue_due_by_type_idx;
DROP INDEX job_queue_due_idx;
ALTER TABLE job_queue DROP COLUMN parked_reason;
ALTER TABLE job_queue DROP COLUMN parked;
CREATE INDEX job_queue_due_idx ON job_queue (priority DESC, created_at, id)
  WHERE ready_at <= COALESCE(promoted_at, created_at);
CREATE INDEX job_queue_due_by_type_idx ON job_queue (job_type, priority DESC, created_at, id)
  WHERE ready_at <= COALESCE(promoted_at, created_at);
