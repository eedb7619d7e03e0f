/**
 * Cron schedules (SPEC §2.9, §4.4; DETAILS "Cron schedule record"). The jobs a schedule
 * enqueues go through addJobsSql, like any other job.
 */
import type { CronScheduleEdit } from '../../../backend.js';
import type { CronScheduleStatus } from '../../../types.js';
import { CRON_COLUMNS } from '../rows.js';
import type { SchemaNames } from './names.js';

const COLUMNS = CRON_COLUMNS.join(', ');

/**
 * Inserts an active schedule. $1 name, $2 expression, $3 job type, $4 payload (JSON text),
 * $5 time zone, $6 allowOverlap, $7 maxAttempts, $8 priority, $9 timeoutMs, $10 tags,
 * $11 retryDelay, $12 retryBackoff, $13 retryDelayMax, $14 nextRunAt, $15 now. A taken name
 * violates cron_schedules_schedule_name_key and writes nothing. Rows: id.
 */
export function addCronScheduleSql(t: SchemaNames): string {
  return `
INSERT INTO ${t.cronSchedules} (
  schedule_name, cron_expression, job_type, payload, timezone, allow_overlap, status, max_attempts,
  priority, timeout_ms, tags, retry_delay, retry_backoff, retry_delay_max, next_run_at, created_at, updated_at)
VALUES ($1, $2, $3, $4::jsonb, $5, $6, 'active', $7, $8, $9, $10::text[], $11, $12, $13, $14, $15, $15)
RETURNING id`;
}

/** The id holding a schedule name ($1), for the duplicate-name error. */
export function cronIdByNameSql(t: SchemaNames): string {
  return `SELECT id FROM ${t.cronSchedules} WHERE schedule_name = $1`;
}

/** Schedules by id, else by name, else all; optionally of one status; ordered by id. */
export function getCronSchedulesSql(
  t: SchemaNames,
  query: { id?: number; name?: string; status?: CronScheduleStatus },
): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const where: string[] = [];
  if (query.id !== undefined) {
    values.push(query.id);
    where.push(`id = $${values.length}`);
  } else if (query.name !== undefined) {
    values.push(query.name);
    where.push(`schedule_name = $${values.length}`);
  }
  if (query.status !== undefined) {
    values.push(query.status);
    where.push(`status = $${values.length}`);
  }
  const filter = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  return { text: `SELECT ${COLUMNS} FROM ${t.cronSchedules}${filter} ORDER BY id`, values };
}

/** Active schedules due at $1 (inclusive), oldest due first, at most $2: cron_schedules_due_idx. */
export function dueCronSchedulesSql(t: SchemaNames): string {
  return `
SELECT ${COLUMNS} FROM ${t.cronSchedules}
WHERE status = 'active' AND next_run_at <= $1
ORDER BY next_run_at, id
LIMIT $2`;
}

type EditKey = keyof CronScheduleEdit | 'status';
interface EditColumn {
  column: string;
  cast: string;
}

/** The columns an edit may set, by key: SQL is built from this list only, never from input. */
const EDIT_COLUMNS: Record<EditKey, EditColumn> = {
  cronExpression: { column: 'cron_expression', cast: 'text' },
  jobType: { column: 'job_type', cast: 'text' },
  payload: { column: 'payload', cast: 'jsonb' },
  timezone: { column: 'timezone', cast: 'text' },
  allowOverlap: { column: 'allow_overlap', cast: 'boolean' },
  status: { column: 'status', cast: 'text' },
  maxAttempts: { column: 'max_attempts', cast: 'integer' },
  priority: { column: 'priority', cast: 'integer' },
  timeoutMs: { column: 'timeout_ms', cast: 'integer' },
  tags: { column: 'tags', cast: 'text[]' },
  retryDelay: { column: 'retry_delay', cast: 'double precision' },
  retryBackoff: { column: 'retry_backoff', cast: 'boolean' },
  retryDelayMax: { column: 'retry_delay_max', cast: 'double precision' },
  nextRunAt: { column: 'next_run_at', cast: 'timestamptz' },
};

/** Sets the present keys of `edit` on schedule `id`, and updated_at. Rows: id when it exists. */
export function editCronScheduleSql(
  t: SchemaNames,
  id: number,
  edit: CronScheduleEdit & { status?: CronScheduleStatus },
  now: Date,
): { text: string; values: unknown[] } {
  const values: unknown[] = [id, now];
  const sets = ['updated_at = $2::timestamptz'];
  for (const [key, value] of Object.entries(edit)) {
    // An edit object can hold keys the list does not name: those are skipped.
    const target = (EDIT_COLUMNS as Partial<Record<string, EditColumn>>)[key];
    if (value === undefined || target === undefined) continue;
    values.push(key === 'payload' ? JSON.stringify(value) : value);
    sets.push(`${target.column} = $${values.length}::${target.cast}`);
  }
  return { text: `UPDATE ${t.cronSchedules} SET ${sets.join(', ')} WHERE id = $1 RETURNING id`, values };
}

/** Deletes schedule $1 (its jobs stay). Rows: id when it existed. */
export function removeCronScheduleSql(t: SchemaNames): string {
  return `DELETE FROM ${t.cronSchedules} WHERE id = $1 RETURNING id`;
}

/**
 * The compare-and-set of enqueueCronSlots: $1 JSON array of { i, schedule_id, expected,
 * next_run_at }, $2 now, $3 the schedule ids (as an array, so the rows are found by primary
 * key: the planner cannot estimate the JSON's length). Moves each schedule's next_run_at from `expected` to `next_run_at`
 * while it is active; a schedule whose next_run_at another caller already moved is left out.
 *
 * - `expected` went through a JavaScript Date, which keeps milliseconds (the driver truncates
 *   the rest). The library writes milliseconds only, but a next_run_at written by SQL, a restore
 *   or another tool may carry microseconds and would never compare equal: compare at the
 *   precision the library writes, truncating like the driver does.
 * - Rows are locked in id order first, so two callers with overlapping lists never deadlock.
 *   A caller that waited for the lock sees the winner's next_run_at (READ COMMITTED rechecks
 *   the condition on the newest row version) and loses the slot.
 * - `enqueue` tells whether the winner may enqueue: the schedule allows overlap, or its last
 *   job is not active (pending, processing, waiting, or failed with a retry due). A last job
 *   removed by cleanup is not active.
 * - A triggered run (triggerCronJob) has a null `expected` and `next_run_at`: it skips the
 *   compare-and-set and the status check, keeps next_run_at, and is left out (nothing written)
 *   unless it may enqueue. Its caller locks the rows in a statement before this one
 *   (lockCronSchedulesSql): this statement's snapshot then sees the job a concurrent trigger
 *   committed, so the overlap rule holds between two triggers too.
 *
 * Rows: i, id, enqueue.
 */
export function casCronSlotsSql(t: SchemaNames): string {
  return `
WITH input AS MATERIALIZED (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(i integer, schedule_id bigint, expected timestamptz, next_run_at timestamptz)
),
locked AS MATERIALIZED (
  SELECT s.id,
    s.allow_overlap OR NOT EXISTS (
      SELECT 1 FROM ${t.jobs} j
      WHERE j.id = s.last_job_id
        AND (j.status IN ('pending', 'processing', 'waiting') OR (j.status = 'failed' AND j.next_attempt_at IS NOT NULL))
    ) AS enqueue
  FROM ${t.cronSchedules} s
  WHERE s.id = ANY($3::bigint[])
  ORDER BY s.id
  FOR UPDATE OF s
)
UPDATE ${t.cronSchedules} s
SET next_run_at = COALESCE(x.next_run_at, s.next_run_at), updated_at = $2::timestamptz
FROM input x, locked l
WHERE s.id = ANY($3::bigint[]) AND s.id = x.schedule_id AND l.id = s.id
  AND CASE WHEN x.expected IS NULL THEN l.enqueue
      ELSE s.status = 'active' AND date_trunc('milliseconds', s.next_run_at) = x.expected END
RETURNING x.i, s.id, l.enqueue`;
}

/**
 * Locks schedules $1 (ids) in id order, as casCronSlotsSql does, in a statement of their own:
 * run before casCronSlotsSql for triggered runs (see there). Rows: id.
 */
export function lockCronSchedulesSql(t: SchemaNames): string {
  return `SELECT id FROM ${t.cronSchedules} WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE`;
}

/** Records the jobs enqueued for schedules: $1 schedule ids, $2 job ids, $3 now. */
export function recordCronJobsSql(t: SchemaNames): string {
  return `
UPDATE ${t.cronSchedules} s SET last_job_id = x.job_id, last_enqueued_at = $3
FROM unnest($1::bigint[], $2::bigint[]) AS x(schedule_id, job_id)
WHERE s.id = x.schedule_id`;
}
