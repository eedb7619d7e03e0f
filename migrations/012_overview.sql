-- Up Migration
-- The overview of the dashboard: throughput counters and the job counts' read.
--
-- Throughput counters: completed and failed attempts per minute, for the dashboard's overview
-- and queue.getThroughput(). The statements that complete jobs, record a failed attempt or
-- reclaim stuck jobs add to the row of the minute of their `now`, in the same statement, so a
-- counter never disagrees with what was recorded. Reading an hour sums at most 60 x 16 rows.
--
-- Contention: a row per minute would be updated by every completion of that minute, and
-- concurrent completions would queue on its lock. So each minute has up to 16 rows (`slot`, the
-- writing connection's backend pid modulo 16): connections mostly write rows of their own, and a
-- read sums the slots. The supervisor removes the rows of minutes older than about an hour.
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

CREATE TABLE job_throughput (
  -- The start of the minute (UTC, whole minutes since the epoch).
  minute     TIMESTAMPTZ NOT NULL,
  slot       SMALLINT    NOT NULL,
  completed  BIGINT      NOT NULL DEFAULT 0,
  failed     BIGINT      NOT NULL DEFAULT 0,
  PRIMARY KEY (minute, slot)
);

-- getJobCounts: the job types of the newest p_limit jobs of each status, counted, so its work
-- follows p_limit and never the number of jobs stored. Each status is an ordered walk of
-- job_queue_status_idx (status, id) backwards that stops after p_limit entries. Written inline,
-- the planner walked the primary key backwards instead, filtering out the other statuses (all
-- of the table for a rare status), or read every job of the status in a bitmap and sorted it.
-- So the status test is a range (with `status = x` the planner drops status from the order,
-- which the primary key then serves too), and sequential scans, bitmap scans and sorts are off:
-- the ordered walk is the only plan left, whatever the statistics. The search_path is pinned.
CREATE FUNCTION job_queue_count_newest(p_limit INTEGER)
RETURNS TABLE (status TEXT, job_type TEXT, n BIGINT)
LANGUAGE sql STABLE PARALLEL SAFE
SET enable_seqscan = off
SET enable_bitmapscan = off
SET enable_sort = off
SET jit = off
SET search_path FROM CURRENT
AS $$
  SELECT s.status, newest.job_type, count(*)
  FROM (VALUES ('pending'), ('processing'), ('completed'), ('failed'), ('cancelled'), ('waiting')) AS s(status)
  CROSS JOIN LATERAL (
    SELECT j.job_type FROM job_queue j
    WHERE j.status >= s.status AND j.status <= s.status
    ORDER BY j.status DESC, j.id DESC
    LIMIT p_limit
  ) newest
  GROUP BY s.status, newest.job_type
$$;

-- Down Migration
DROP FUNCTION job_queue_count_newest(INTEGER);
DROP TABLE job_throughput;
