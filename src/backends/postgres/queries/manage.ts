/**
 * Managing jobs (SPEC §4.3): retry, cancel, edit, delete, cleanup, reclaim. Each is one statement
 * (a bulk action by filter: one per batch, bulk.ts).
 */
import type { JobEdit } from '../../../backend.js';
import type { JobFilter } from '../../../types.js';
import { deadLetterEnvelope, deadLetterInsertCtes, errorEntry } from './cascade.js';
import { belowRunEventsFloor, CLEAR_KEPT_PROCESSING, keptProcessingEvent, writeOutKeptProcessing } from './events.js';
import { filterConditions } from './list.js';
import type { SchemaNames } from './names.js';
import { countAttemptsSql } from './overview.js';

/**
 * The retry of the jobs `target` selects (SPEC §3): back to pending, due now at the latest, with a
 * fresh attempt budget, a `retried` event each and one wake-up. CTEs `retried` (ids),
 * `retried_events` and `notified`; `now` and `channel` are parameter references. A `processing`
 * event kept in the row (only a process of an earlier version leaves one on a job it failed,
 * migration 018) stays for the next claim to write out, unless the cleanup removed it: the job
 * was finished and below the floor, and once it is pending again the floor no longer hides it.
 */
function retryCtes(t: SchemaNames, target: string, now: string, channel: string): string {
  const removed = belowRunEventsFloor('j', 'f');
  return `
retried AS (
  UPDATE ${t.jobs} j
  SET status = 'pending', attempts = 0, next_attempt_at = NULL, last_retried_at = ${now}, updated_at = ${now},
      run_at = LEAST(j.run_at, ${now}), locked_at = NULL, locked_by = NULL, pending_reason = NULL,
      wait_until = NULL, wait_token_id = NULL, parked = false, parked_reason = NULL,
      processing_event_id = CASE WHEN ${removed} THEN NULL ELSE j.processing_event_id END,
      processing_event_at = CASE WHEN ${removed} THEN NULL ELSE j.processing_event_at END
  FROM ${t.runEventsFloor} f
  WHERE ${target}
  RETURNING j.id
),
retried_events AS (
  INSERT INTO ${t.events} (job_id, event_type, created_at, metadata)
  SELECT id, 'retried', ${now}, NULL FROM retried ORDER BY id
),
notified AS (
  SELECT pg_notify(${channel}, '') FROM (SELECT 1 FROM retried LIMIT 1) s
)`;
}

/** failed or cancelled job $1 → pending (retryCtes). $2 now, $3 channel. Rows: the id, when retried. */
export function retryJobSql(t: SchemaNames): string {
  return `
WITH ${retryCtes(t, `j.id = $1 AND j.status IN ('failed', 'cancelled')`, '$2::timestamptz', '$3::text')}
SELECT id, (SELECT count(*) FROM notified) AS notified FROM retried`;
}

/**
 * The jobs one action changes: by id, or the jobs of a batch of a bulk action by filter
 * (bulk.ts), given by their ids and the status the walk read them in, and judged again here.
 */
export type JobTarget = { jobId: number } | BatchTarget;
export type BatchTarget = { batch: number[]; status: BulkStatus; filter: JobFilter | undefined };
/** The status whose jobs a bulk action walks: failed (retry) or pending (cancel, edit). */
export type BulkStatus = 'failed' | 'pending';

/**
 * The WHERE condition on `j` of the jobs `target` selects, with the CTEs it needs (pushing its
 * values). One job: by its id, in one of `statuses`. A batch: its jobs still in the walk's
 * status and matching the filter, judged once locked by a plain FOR UPDATE (a job another
 * transaction is changing, a claim or an edit, is waited for, then judged as that transaction
 * left it; SKIP LOCKED would leave it out of the action). The jobs are read by their ids alone,
 * so the primary key is the one index their condition fits (with the status or the filter
 * beside it, before ANALYZE, the planner read every job of that status or type and filtered the
 * ids out); the UPDATE finds the locked rows by their ctid, which the lock keeps.
 */
function targetSql(
  t: SchemaNames,
  target: JobTarget,
  statuses: string[],
  values: unknown[],
): { ctes: string; condition: string } {
  if ('jobId' in target) {
    values.push(target.jobId);
    const list = statuses.map((s) => `'${s}'`).join(', ');
    return { ctes: '', condition: `j.id = $${values.length} AND j.status IN (${list})` };
  }
  values.push(target.batch);
  const ids = `$${values.length}::bigint[]`;
  const matching = [`j.status = '${target.status}'`, ...filterConditions(t, target.filter, values)];
  const ctes = `
picked AS MATERIALIZED (
  SELECT j.row_ctid FROM (
    SELECT j.*, j.ctid AS row_ctid FROM ${t.jobs} j WHERE j.id = ANY (${ids}) OFFSET 0 FOR UPDATE
  ) j
  WHERE ${matching.join(' AND ')}
),`;
  return { ctes, condition: 'j.ctid = ANY (ARRAY(SELECT row_ctid FROM picked))' };
}

/** Above every job id: the cursor of a bulk action's first batch. */
export const ABOVE_EVERY_ID = '9223372036854775807';

/**
 * The ids of the next $3 jobs of status $1 below the id $2, newest first: a batch of a bulk
 * action (job_queue_status_batch, migration 019, walks the status index in order and stops at
 * the batch, whatever the statistics). Rows: id.
 */
export function statusBatchSql(t: SchemaNames): string {
  return `SELECT id FROM ${t.statusBatch}($1::text, $2::bigint, $3::integer) AS id`;
}

/**
 * Retries the failed jobs of a batch that match its filter (targetSql, retryCtes). Rows: the
 * ids retried.
 */
export function retryBatchSql(t: SchemaNames, target: BatchTarget, now: Date): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const { ctes, condition } = targetSql(t, target, [], values);
  values.push(now, t.channel);
  const n = values.length;
  const text = `
WITH ${ctes}
${retryCtes(t, condition, `$${n - 1}::timestamptz`, `$${n}::text`)}
SELECT id, (SELECT count(*) FROM notified) AS notified FROM retried ORDER BY id`;
  return { text, values };
}

/**
 * Deletes job $1 when it is finished (completed, cancelled, failed with no retry left), with
 * its events, as cleanupJobsSql removes one. Rows: the job's status and next attempt as found
 * (no row: no such job) and whether it was deleted.
 */
export function deleteJobSql(t: SchemaNames): string {
  return `
WITH found AS MATERIALIZED (
  SELECT j.id, j.status, j.next_attempt_at FROM ${t.jobs} j WHERE j.id = $1 FOR UPDATE
),
doomed AS MATERIALIZED (
  SELECT id FROM found
  WHERE status IN ('completed', 'cancelled') OR (status = 'failed' AND next_attempt_at IS NULL)
),
gone_events AS (
  DELETE FROM ${t.events} e WHERE e.job_id IN (SELECT id FROM doomed)
),
gone AS (
  DELETE FROM ${t.jobs} j WHERE j.id IN (SELECT id FROM doomed) RETURNING 1
)
SELECT f.status, (f.status = 'failed' AND f.next_attempt_at IS NOT NULL) AS retry_due, (SELECT count(*) FROM gone) > 0 AS deleted FROM found f`;
}

/**
 * Cancels the targeted jobs (one job: pending or waiting; a batch: pending jobs). Their
 * dependents are cancelled afterwards, in the same transaction, by cascadeLevelSql. Rows: id.
 */
export function cancelJobsSql(t: SchemaNames, target: JobTarget, now: Date): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const { ctes, condition } = targetSql(t, target, ['pending', 'waiting'], values);
  values.push(now);
  const n = `$${values.length}::timestamptz`;
  const text = `
WITH ${ctes}
requested AS (
  UPDATE ${t.jobs} j
  SET status = 'cancelled', last_cancelled_at = ${n}, updated_at = ${n}
  WHERE ${condition}
  RETURNING j.id
),
requested_events AS (
  INSERT INTO ${t.events} (job_id, event_type, created_at, metadata)
  SELECT id, 'cancelled', ${n}, NULL FROM requested ORDER BY id
)
SELECT id FROM requested ORDER BY id`;
  return { text, values };
}

const EDIT_COLUMNS: Record<keyof JobEdit, { column: string; cast: string }> = {
  payload: { column: 'payload', cast: 'jsonb' },
  maxAttempts: { column: 'max_attempts', cast: 'integer' },
  priority: { column: 'priority', cast: 'integer' },
  runAt: { column: 'run_at', cast: 'timestamptz' },
  timeoutMs: { column: 'timeout_ms', cast: 'integer' },
  tags: { column: 'tags', cast: 'text[]' },
  retryDelay: { column: 'retry_delay', cast: 'double precision' },
  retryBackoff: { column: 'retry_backoff', cast: 'boolean' },
  retryDelayMax: { column: 'retry_delay_max', cast: 'double precision' },
  deadLetterJobType: { column: 'dead_letter_job_type', cast: 'text' },
};

/**
 * Edits the targeted pending jobs: only the fields present in `edit` change. Each edited job
 * gets an `edited` event whose metadata is the updated fields (dates as ISO strings). Wakes
 * processors when `runAt` changed, since a job may have become due. Rows: id.
 */
export function editJobsSql(
  t: SchemaNames,
  target: JobTarget,
  edit: JobEdit,
  now: Date,
): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const { ctes, condition } = targetSql(t, target, ['pending'], values);
  const sets: string[] = [];
  for (const key of Object.keys(edit) as (keyof JobEdit)[]) {
    const value = edit[key];
    if (value === undefined) continue;
    const { column, cast } = EDIT_COLUMNS[key];
    values.push(key === 'payload' ? JSON.stringify(value) : value);
    sets.push(`${column} = $${values.length}::${cast}`);
  }
  values.push(now);
  const n = `$${values.length}::timestamptz`;
  values.push(JSON.stringify(edit));
  const metadata = `$${values.length}::jsonb`;
  values.push(t.channel);
  const channel = `$${values.length}::text`;
  const text = `
WITH ${ctes}
edited AS (
  UPDATE ${t.jobs} j SET ${[...sets, `updated_at = ${n}`].join(', ')}
  WHERE ${condition}
  RETURNING j.id
),
edited_events AS (
  INSERT INTO ${t.events} (job_id, event_type, created_at, metadata)
  SELECT id, 'edited', ${n}, ${metadata} FROM edited ORDER BY id
),
notified AS (
  SELECT pg_notify(${channel}, '') FROM (SELECT 1 FROM edited LIMIT 1) s WHERE ${edit.runAt !== undefined}
)
SELECT id, (SELECT count(*) FROM notified) AS notified FROM edited ORDER BY id`;
  return { text, values };
}

/**
 * Removes up to $2 finished jobs (completed, cancelled, failed with no retry left) last updated
 * before $1, with their events. Returns how many jobs.
 *
 * The batch comes from job_queue_cleanup_batch (migration 007): the oldest finished jobs, read
 * in order from the index of finished jobs and no further than the batch, whatever the
 * statistics. Both deletes then take the batch's ids as an array (`= ANY`), not as a join with
 * the batch: each id is looked up in the primary key (index or bitmap scan), with no join for the
 * planner to misjudge. As a join, right
 * after a burst of adds (before ANALYZE) the planner took the events for few and merged the
 * batch with the whole events primary key, in every batch.
 */
export function cleanupJobsSql(t: SchemaNames): string {
  return `
WITH doomed AS MATERIALIZED (
  SELECT id FROM ${t.jobsCleanupBatch}($1, $2) AS id
),
gone_events AS (
  DELETE FROM ${t.events} e WHERE e.job_id = ANY (ARRAY(SELECT id FROM doomed))
),
gone AS (
  DELETE FROM ${t.jobs} j WHERE j.id = ANY (ARRAY(SELECT id FROM doomed)) RETURNING 1
)
SELECT count(*)::int AS n FROM gone`;
}

/**
 * Reclaims jobs processing for longer than $2 ms (or their own longer timeout_ms) at $1:
 * attempts left → pending; none left → failed with reason 'timeout', routed to their dead-letter
 * type (their dependents are cancelled afterwards by cascadeLevelSql, in the same transaction).
 * Every reclaimed job gets a `failed` event, after its attempt's kept `processing` event, written
 * out of its row (migration 018). $3 now as ISO text, $4 channel.
 * Rows: kind 'requeued' | 'failed' | 'dead_letter' | 'notified', id.
 */
export function reclaimSql(t: SchemaNames): string {
  const message = `'Reclaimed: still processing after ' || s.limit_ms || ' ms, the worker is presumed lost'`;
  return `
WITH stuck AS MATERIALIZED (
  SELECT j.id, j.job_type, j.payload, j.attempts, j.max_attempts, j.dead_letter_job_type,
    j.attempts < j.max_attempts AS will_retry,
    round(GREATEST($2::double precision, COALESCE(j.timeout_ms, 0)))::bigint AS limit_ms,
    ${keptProcessingEvent('j')}
  FROM ${t.jobs} j
  WHERE j.status = 'processing'
    -- The first bound alone lets job_queue_locked_at_idx serve the scan.
    AND j.locked_at < $1::timestamptz - $2::double precision * interval '1 millisecond'
    AND j.locked_at < $1::timestamptz - GREATEST($2::double precision, COALESCE(j.timeout_ms, 0)) * interval '1 millisecond'
  ORDER BY j.id
  FOR UPDATE SKIP LOCKED
),
requeued AS (
  UPDATE ${t.jobs} j SET status = 'pending', locked_at = NULL, locked_by = NULL, updated_at = $1, ${CLEAR_KEPT_PROCESSING}
  FROM stuck s
  WHERE j.id = s.id AND s.will_retry
  RETURNING j.id
),
dl AS MATERIALIZED (
  SELECT s.id AS src_id, nextval('${t.jobIdSeq}'::regclass) AS id, s.dead_letter_job_type AS job_type,
    ${deadLetterEnvelope('s', message, `'timeout'`, '$3::text')} AS payload
  FROM (SELECT * FROM stuck WHERE NOT will_retry AND dead_letter_job_type IS NOT NULL ORDER BY id) s
),
failed AS (
  UPDATE ${t.jobs} j
  SET status = 'failed', failure_reason = 'timeout', next_attempt_at = NULL, last_failed_at = $1, updated_at = $1,
      locked_at = NULL, locked_by = NULL,
      error_history = j.error_history || jsonb_build_array(${errorEntry(message, '$3::text')}),
      dead_letter_job_id = COALESCE(dl.id, j.dead_letter_job_id),
      dead_lettered_at = CASE WHEN dl.id IS NULL THEN j.dead_lettered_at ELSE $1 END,
      ${CLEAR_KEPT_PROCESSING}
  FROM stuck s LEFT JOIN dl ON dl.src_id = s.id
  WHERE j.id = s.id AND NOT s.will_retry
  RETURNING j.id
),
kept_events AS (
  -- The attempt's processing event, kept in the row (migration 018), before its failed event.
  ${writeOutKeptProcessing(t, 'stuck')}
),
failed_events AS (
  INSERT INTO ${t.events} (job_id, event_type, created_at, metadata)
  SELECT s.id, 'failed', $1, jsonb_build_object('message', ${message}, 'failureReason', 'timeout',
    'willRetry', s.will_retry, 'deadLetterJobId', dl.id)
  FROM stuck s LEFT JOIN dl ON dl.src_id = s.id
  ORDER BY s.id
),
counted AS (
  -- Every stuck job's attempt failed, whether it is requeued or not (its 'failed' event above).
  ${countAttemptsSql(t, 'failed', '$1::timestamptz', 'stuck')}
),
${deadLetterInsertCtes(t, 'dl', '$1::timestamptz')},
notified AS (
  SELECT pg_notify($4, '') FROM (SELECT 1 FROM requeued UNION ALL SELECT 1 FROM dead_letters LIMIT 1) s
)
SELECT 'requeued' AS kind, id FROM requeued
UNION ALL SELECT 'failed', id FROM failed
UNION ALL SELECT 'dead_letter', id FROM dead_letters
UNION ALL SELECT 'notified', count(*) FROM notified`;
}
