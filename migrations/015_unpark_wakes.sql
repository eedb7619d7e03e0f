-- Up Migration
-- Parked jobs that an update puts back in the due lane (their group's slot freed, their
-- prerequisite completed, their tag barrier ended) now wake idle processors, as a new job does:
-- the trigger that puts them back sends the queue's NOTIFY when it put back any. Before, a
-- processor waiting for such a job found it only at its next poll, unless the statement that
-- freed it sent a wake-up of its own. The function is 009's, with the count of the jobs put
-- back and the wake-up at the end.
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

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
  unparked BIGINT := 0;
  n BIGINT;
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
  GET DIAGNOSTICS n = ROW_COUNT;
  unparked := unparked + n;

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
  GET DIAGNOSTICS n = ROW_COUNT;
  unparked := unparked + n;

  ended_tags := ARRAY(
    SELECT DISTINCT t FROM old_rows o JOIN new_rows n ON n.id = o.id, unnest(o.tags) AS t
    WHERE o.status IN ('pending', 'processing', 'waiting')
      AND (n.status NOT IN ('pending', 'processing', 'waiting') OR n.tags IS DISTINCT FROM o.tags));
  IF cardinality(ended_tags) > 0 THEN
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
      GET DIAGNOSTICS n = ROW_COUNT;
      unparked := unparked + n;
    END LOOP;
  END IF;

  -- Due jobs came back: wake idle processors on the queue's channel (notifyChannel in the
  -- client: queuedev_<schema>, or a hash of a schema name too long for it), sent at commit.
  IF unparked > 0 THEN
    PERFORM pg_notify(
      CASE WHEN length('queuedev_' || current_schema()) <= 63 THEN 'queuedev_' || current_schema()
        ELSE 'queuedev_' || left(encode(sha256(convert_to(current_schema(), 'UTF8')), 'hex'), 40) END,
      '');
  END IF;
  RETURN NULL;
END
$$;

-- Down Migration
-- 009's function, without the wake-up.
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
