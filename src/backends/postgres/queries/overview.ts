/**
 * The overview (src/overview.ts): job counts per status and job type, and the throughput
 * counters of migration 012, with the piece of statement that completes and fails add to them.
 */
import type { SchemaNames } from './names.js';

/** The start of the minute of a timestamptz expression: whole minutes since the epoch, whatever the connection's time zone. */
function minuteOf(time: string): string {
  return `to_timestamp(floor(extract(epoch FROM ${time}) / 60) * 60)`;
}

/** How many rows each minute spreads over (migration 012). */
const THROUGHPUT_SLOTS = 16;

/**
 * A data-modifying CTE body adding the rows of `rows` (a CTE of the statement) to the `column`
 * counter of the minute of `now`, in this connection's slot: the completions and failures count in
 * the statement that records them. Writes nothing when `rows` is empty.
 */
export function countAttemptsSql(t: SchemaNames, column: 'completed' | 'failed', now: string, rows: string): string {
  return `INSERT INTO ${t.throughput} AS c (minute, slot, ${column})
  SELECT ${minuteOf(now)}, (pg_backend_pid() % ${THROUGHPUT_SLOTS})::smallint, count(*) FROM ${rows} HAVING count(*) > 0
  ON CONFLICT (minute, slot) DO UPDATE SET ${column} = c.${column} + EXCLUDED.${column}`;
}

/**
 * $1 the most jobs read per status. Rows: status, job_type, n: the job types of the newest $1
 * jobs of each status, counted by job_queue_count_newest (migration 012), which walks each
 * status backwards through job_queue_status_idx and stops after $1 entries: the work follows
 * $1, never the number of jobs stored.
 */
export function countPerStatusSql(t: SchemaNames): string {
  return `SELECT status, job_type, n FROM ${t.countNewest}($1::integer)`;
}

/** $1 first minute, $2 last minute (both included). Rows: minute, completed, failed, summed over the slots. */
export function throughputSql(t: SchemaNames): string {
  return `
SELECT minute, sum(completed) AS completed, sum(failed) AS failed
FROM ${t.throughput}
WHERE minute BETWEEN $1 AND $2
GROUP BY minute
ORDER BY minute`;
}

/** $1 the cutoff: removes the counters of minutes before it. Rows: n. */
export function trimThroughputSql(t: SchemaNames): string {
  return `WITH gone AS (DELETE FROM ${t.throughput} WHERE minute < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone`;
}
