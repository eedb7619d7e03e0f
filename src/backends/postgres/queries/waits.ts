/**
 * Durable waits (DETAILS "Handler context", "Queue-level token operations"): step data, the
 * move to `waiting`, and waitpoint tokens. Job writes are fenced like processing writes: only
 * while the job is processing and locked by the same worker.
 *
 * Lost wake-ups: a token's row lock orders the operations on it. enterWait locks the token
 * before it moves the job to `waiting`; completing or expiring a token changes the token first
 * and resumes its waiting jobs in a LATER statement of the same transaction, whose snapshot
 * sees a job that entered its wait while the token was locked. (One statement would not: its
 * snapshot is taken before it waits for the lock.)
 */
import { TOKEN_COLUMNS } from '../rows.js';
import { CLEAR_KEPT_PROCESSING, keptProcessingEvent, writeOutKeptProcessing } from './events.js';
import type { SchemaNames } from './names.js';

const TOKEN = TOKEN_COLUMNS.join(', ');

/** Merges step $3 = $4 (JSON text) into job $1's step data, fenced by worker $2; $5 now. Rows: id. */
export function saveStepSql(t: SchemaNames): string {
  return `
UPDATE ${t.jobs}
SET step_data = COALESCE(step_data, '{}'::jsonb) || jsonb_build_object($3::text, $4::jsonb), updated_at = $5
WHERE id = $1 AND status = 'processing' AND locked_by = $2
RETURNING id`;
}

/**
 * processing → waiting, fenced: $1 job id, $2 worker, $3 now, $4 wait_until (or NULL),
 * $5 token id (or NULL), $6 step name (or NULL: no step), $7 step value (JSON text), $8 the
 * `waiting` event's metadata (JSON text), $9 channel. Clears the lock, keeps `attempts`, writes
 * out the attempt's kept `processing` event (migration 018), and points the token (locked by
 * the caller) at the job. Wakes processors when a group slot was
 * freed or the wait is already over, as a processor may run something now. Rows: id.
 */
export function enterWaitSql(t: SchemaNames): string {
  return `
WITH held AS MATERIALIZED (
  -- Locked first, so the kept processing event read here is the one the update clears.
  SELECT j.id, ${keptProcessingEvent('j')} FROM ${t.jobs} j
  WHERE j.id = $1 AND j.status = 'processing' AND j.locked_by = $2
  FOR UPDATE
),
waited AS (
  UPDATE ${t.jobs} j
  SET status = 'waiting', wait_until = $4::timestamptz, wait_token_id = $5::text,
      locked_at = NULL, locked_by = NULL, updated_at = $3::timestamptz,
      step_data = CASE WHEN $6::text IS NULL THEN j.step_data
                       ELSE COALESCE(j.step_data, '{}'::jsonb) || jsonb_build_object($6::text, $7::jsonb) END,
      ${CLEAR_KEPT_PROCESSING}
  WHERE j.id = (SELECT h.id FROM held h) AND j.status = 'processing' AND j.locked_by = $2
  RETURNING j.id, j.group_id
),
kept_events AS (
  -- The attempt's processing event, kept in the row (migration 018), before its waiting event.
  ${writeOutKeptProcessing(t, 'held')}
),
token AS (
  UPDATE ${t.tokens} k SET job_id = w.id FROM waited w WHERE k.id = $5::text
),
waiting_events AS (
  INSERT INTO ${t.events} (job_id, event_type, created_at, metadata)
  SELECT id, 'waiting', $3::timestamptz, $8::jsonb FROM waited
),
notified AS (
  SELECT pg_notify($9, '') FROM waited w WHERE w.group_id IS NOT NULL OR $4::timestamptz <= $3::timestamptz
)
SELECT id, (SELECT count(*) FROM notified) AS notified FROM waited`;
}

/** Whether job $1 is still processing under worker $2. Rows: one when it is. */
export function stillOursSql(t: SchemaNames): string {
  return `SELECT 1 FROM ${t.jobs} WHERE id = $1 AND status = 'processing' AND locked_by = $2`;
}

/** Token $1, locked until the end of the transaction. */
export function lockTokenSql(t: SchemaNames): string {
  return `SELECT ${TOKEN} FROM ${t.tokens} WHERE id = $1 FOR UPDATE`;
}

export function getTokenSql(t: SchemaNames): string {
  return `SELECT ${TOKEN} FROM ${t.tokens} WHERE id = $1`;
}

/** Inserts an open token: $1 id, $2 job id, $3 timeout_at, $4 now, $5 tags. Rows: id; none when the id is taken. */
export function createTokenSql(t: SchemaNames): string {
  return `
INSERT INTO ${t.tokens} (id, job_id, status, timeout_at, created_at, tags)
VALUES ($1, $2, 'waiting', $3, $4, $5::text[])
ON CONFLICT (id) DO NOTHING
RETURNING id`;
}

/** Open token $1 → completed with output $2 (JSON text) at $3. Rows: id; none when it was not open. */
export function completeTokenSql(t: SchemaNames): string {
  return `
UPDATE ${t.tokens} SET status = 'completed', output = $2::jsonb, completed_at = $3
WHERE id = $1 AND status = 'waiting'
RETURNING id`;
}

/**
 * Up to $2 open tokens whose timeout_at is at or before $1 → timed_out (waitpoint_tokens_timeout_idx).
 * SKIP LOCKED: a token locked by a wait or a completion is settled by that, or by the next run.
 * Rows: id.
 */
export function expireTokensSql(t: SchemaNames): string {
  return `
WITH due AS (
  SELECT id FROM ${t.tokens}
  WHERE status = 'waiting' AND timeout_at IS NOT NULL AND timeout_at <= $1
  ORDER BY timeout_at
  LIMIT $2
  FOR UPDATE SKIP LOCKED
)
UPDATE ${t.tokens} k SET status = 'timed_out', completed_at = $1
-- An id array: the rows are then found by primary key, never by scanning every token.
WHERE k.id = ANY(ARRAY(SELECT id FROM due))
RETURNING k.id`;
}

/**
 * Resumes the jobs waiting on the tokens $1 (just settled): pending with pending_reason
 * 'resumed' (the claim adds no attempt for it), ready now, and a wake-up. $2 now, $3 channel.
 * Rows: n, the number of jobs resumed.
 */
export function resumeTokenWaitersSql(t: SchemaNames): string {
  return `
WITH resumed AS (
  UPDATE ${t.jobs} j
  SET status = 'pending', pending_reason = 'resumed', wait_token_id = NULL, wait_until = NULL,
      -- Ready now; a job that already ran has its run_at in the past anyway.
      run_at = LEAST(j.run_at, $2::timestamptz), updated_at = $2::timestamptz
  WHERE j.status = 'waiting' AND j.wait_token_id = ANY($1::text[])
  RETURNING j.id
),
notified AS (
  SELECT pg_notify($3, '') FROM (SELECT 1 FROM resumed LIMIT 1) s
)
SELECT count(*)::int AS n, (SELECT count(*) FROM notified) AS notified FROM resumed`;
}
