-- Up Migration
-- Parked jobs of a group (migration 006) that could be left parked with nothing of their group
-- running, or held back from a claim limited to their job type:
-- - a freed slot went to the group's best parked job only; when that job then left the due
--   lane without running (cancelled, moved later, parked behind a tag barrier), the other
--   parked jobs of the group waited for a slot that no job would free. Now such a job frees a
--   slot itself, as a processing job that stops does.
-- - a freed slot gave back one job whatever its type, so a processor limited to another type
--   never found its job. Now the best parked job of each job type of the group comes back.
-- - a parked job cancelled or moved later stayed parked and could take a freed slot or a
--   released barrier's turn. Now it leaves the parked jobs when it stops being due.
--
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

-- A group's parked jobs by job type, best first: the best of each type comes back per slot.
CREATE INDEX job_queue_parked_group_type_idx ON job_queue (group_id, job_type, priority DESC, created_at, id)
  WHERE parked AND parked_reason = 'group_full';
DROP INDEX job_queue_parked_group_idx;

-- After every UPDATE of job_queue: the parked jobs whose blocker this statement ended go back
-- to the due lane. A barrier's jobs come back once no other active job carries its tags (under
-- a lock per barrier, so two holders ending at once cannot both leave it for the other); a
-- group gets back, per slot that freed, its best parked job of each job type.
CREATE OR REPLACE FUNCTION job_queue_unpark() RETURNS trigger
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

  -- Parked jobs this statement made not due (cancelled, moved later) are parked no more: a
  -- parked job is always due, so the slot or barrier that ends goes to one that can run.
  UPDATE job_queue d SET parked = false, parked_reason = NULL
  WHERE d.id = ANY(ARRAY(
    SELECT n.id FROM new_rows n
    WHERE n.parked AND NOT COALESCE(n.ready_at <= COALESCE(n.promoted_at, n.created_at), false)));

  UPDATE job_queue d SET parked = false, parked_reason = NULL
  WHERE d.parked AND d.parked_reason = 'prerequisites' AND d.depends_on_job_ids IS NOT NULL
    AND d.depends_on_job_ids && ARRAY(
      SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE n.status = 'completed' AND o.status <> 'completed');

  -- A group's turns: a processing job that stops processing frees a slot, and so does a job of
  -- the due lane that leaves it without running (cancelled, moved later, parked for another
  -- reason), since the group's parked jobs may have counted on it to run and free one. Per slot,
  -- the best parked job of each job type comes back (a claim limited to some types takes its
  -- own); a claim parks again those that find the group full. So a group's parked jobs always
  -- have a job of the group processing, or in the due lane ahead of them.
  UPDATE job_queue d SET parked = false, parked_reason = NULL
  WHERE d.id = ANY(ARRAY(
    SELECT w.id FROM (
      SELECT o.group_id, count(*) AS freed FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE o.group_id IS NOT NULL AND n.status <> 'processing'
        AND (o.status = 'processing'
          OR (COALESCE(o.ready_at <= COALESCE(o.promoted_at, o.created_at), false) AND NOT o.parked
            AND NOT (COALESCE(n.ready_at <= COALESCE(n.promoted_at, n.created_at), false) AND NOT n.parked)
            AND NOT (n.parked AND n.parked_reason = 'group_full')))
      GROUP BY o.group_id
    ) f
    CROSS JOIN LATERAL (
      -- The job types of the group's parked jobs, one index probe each.
      WITH RECURSIVE types(job_type) AS (
        (SELECT p.job_type FROM job_queue p
         WHERE p.parked AND p.parked_reason = 'group_full' AND p.group_id = f.group_id
         ORDER BY p.job_type LIMIT 1)
        UNION ALL
        SELECT (SELECT p.job_type FROM job_queue p
                WHERE p.parked AND p.parked_reason = 'group_full' AND p.group_id = f.group_id
                  AND p.job_type > t.job_type
                ORDER BY p.job_type LIMIT 1)
        FROM types t WHERE t.job_type IS NOT NULL
      )
      SELECT types.job_type FROM types WHERE types.job_type IS NOT NULL
    ) t
    CROSS JOIN LATERAL (
      SELECT p.id FROM job_queue p
      WHERE p.parked AND p.parked_reason = 'group_full' AND p.group_id = f.group_id AND p.job_type = t.job_type
      ORDER BY p.priority DESC, p.created_at, p.id
      LIMIT f.freed
      FOR UPDATE SKIP LOCKED
    ) w));

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

-- Parked jobs of a full group come back to the due lane (a claim parks again those still held
-- back), and so do parked jobs that are not due: neither kind is left behind by the rules above.
UPDATE job_queue SET parked = false, parked_reason = NULL
WHERE parked AND (parked_reason = 'group_full' OR NOT COALESCE(ready_at <= COALESCE(promoted_at, created_at), false));

-- Down Migration
CREATE INDEX job_queue_parked_group_idx ON job_queue (group_id, priority DESC, created_at, id)
  WHERE parked AND parked_reason = 'group_full';
DROP INDEX job_queue_parked_group_type_idx;

-- After every UPDATE of job_queue: the parked jobs whose blocker this statement ended go back
-- to the due lane. A barrier's jobs come back once no other active job carries its tags (under
-- a lock per barrier, so two holders ending at once cannot both leave it for the other); a
-- group gets back one parked job per slot that freed.
CREATE OR REPLACE FUNCTION job_queue_unpark() RETURNS trigger
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
