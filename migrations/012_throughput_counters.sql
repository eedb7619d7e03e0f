-- Up Migration
-- Throughput counters: completed and failed attempts per minute, for the dashboard's overview
-- and queue.getThroughput(). The statements that complete jobs, record a failed attempt or
-- reclaim stuck jobs add to the row of the minute of their `now`, in the same statement, so a
-- counter never disagrees with what was recorded. Reading an hour sums at most 60 x 16 rows.
--
-- Contention: a row per minute would be updated by every completion of that minute, and
-- concurrent completions would queue on its lock. So each minute has up to 16 rows (`slot`, the
-- writing session's backend pid modulo 16): sessions mostly write rows of their own, and a
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

-- Down Migration
DROP TABLE job_throughput;
