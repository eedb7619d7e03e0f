/**
 * Processing (SPEC §4.6, DETAILS "Retries, failures, reclaim"): claim, complete, fail, prolong,
 * progress and output. Every write after the claim is fenced: it applies only while the job is
 * still processing and locked by the same worker, so a stale worker's late result is dropped.
 */
import { CLAIMED_COLUMNS } from '../rows.js';
import { deadLetterEnvelope, deadLetterInsertCtes, errorEntry } from './cascade.js';
import { CLEAR_KEPT_PROCESSING, keptProcessingEvent, nextEventId, writeOutKeptProcessing } from './events.js';
import type { SchemaNames } from './names.js';
import { countAttemptsSql } from './overview.js';

/** Key of the transaction-level advisory lock serializing group-limited claims of a schema. */
export function groupClaimLockSql(lockKey: bigint): string {
  // One lock per schema: the count of a group's processing jobs must be read after the previous
  // group-limited claim committed, which a lock taken inside the claim statement (whose snapshot
  // is already fixed) could not guarantee.
  return `SELECT pg_advisory_xact_lock(${lockKey.toString()})`;
}

/** The due lane of migrations 003 and 006: due jobs a claim (or their insert) has seen, not parked. */
const IN_DUE_LANE = 'j.ready_at <= COALESCE(j.promoted_at, j.created_at) AND NOT j.parked';

/** How many jobs at the head of the due lane one claim examines (migration 006): $6. */
const WINDOW = '$6::integer';

/**
 * What a claim writes to a job it takes: $1 now, $2 worker. The job keeps the attempt's
 * `processing` event in its row (migration 018); the claim writes out an event kept there
 * before (see claimJobsSql).
 */
const claimSet = (t: SchemaNames) => `SET status = 'processing',
      -- Resuming from a wait (a due timed wait, or a job its token put back to pending) does
      -- not consume an attempt, nor does a job a processor handed back unstarted (its claim
      -- counted one already).
      attempts = j.attempts + CASE WHEN j.status = 'waiting' OR j.pending_reason IN ('resumed', 'released') THEN 0 ELSE 1 END,
      locked_at = $1, locked_by = $2, started_at = COALESCE(j.started_at, $1),
      next_attempt_at = NULL, pending_reason = NULL, wait_until = NULL, wait_token_id = NULL, updated_at = $1,
      processing_event_id = ${nextEventId(t)}, processing_event_at = $1`;

/**
 * Claims up to $3 eligible jobs for worker $2 at $1, in ONE statement.
 * $4 job types (text[] or NULL for any), $5 groupConcurrency (NULL for unlimited), $6 the
 * window: how many jobs at the head of the due lane it examines at most (claimWindow).
 * `grouped` builds the statement for a non-NULL $5, with the group checks.
 *
 * - Eligible: ready_at <= now (pending at run_at, failed at its retry time, waiting at its
 *   wake-up time), every depends_on_job_ids completed (a removed prerequisite counts as done:
 *   only finished jobs are cleaned up), and no OTHER pending/processing/waiting job carrying all
 *   depends_on_tags. The dependency checks run only for jobs that have dependencies.
 * - Where: a window of at most $6 jobs at the head of the due lane (job_queue_due_idx), plus
 *   the jobs of the scheduled lane that have become due since the last claim
 *   (job_queue_scheduled_idx up to now), which this claim moves into the due lane unless it
 *   claims them. Together the two are every job with ready_at <= now that is not parked, so the
 *   order below holds among all claimable jobs, while jobs not due yet are never walked.
 * - Plans (migration 008): both lanes are read by functions that can only walk their indexes
 *   (for $4, job_queue_due_by_type_idx one type at a time), and every row is then locked and
 *   updated by its address (ctid, a TID scan): no statistics, stale or of a small table, can
 *   make a claim scan the table. A row changed since it was read is checked again on its latest
 *   version when locked or updated, as a lookup by id would be.
 * - Parked (migration 006): a job of the window held back by a prerequisite, a tag barrier or a
 *   full group leaves the due lane, once job_queue_still_blocked has locked a job blocking it;
 *   the statement that ends that blocker puts it back. The window thus bounds the claim's work
 *   however many jobs are blocked, and the next claim looks past those parked now. Rows: the
 *   claimed jobs, each with `passed_over`, the jobs it parked plus the candidates it left for
 *   their group's limit; a single row of NULL job columns when it claimed none (the caller
 *   claims again when it passed over jobs and fell short of $3: the groups this claim filled
 *   are then full, so their jobs are parked and jobs of other groups behind them are reached).
 * - Order: priority DESC, created_at, id.
 * - FOR UPDATE SKIP LOCKED so concurrent claimers never take the same job nor wait on each other.
 * - Group limit: a candidate is skipped when its group is full, and within the batch each group
 *   gets at most its free slots. Exact across processes only under groupClaimLockSql.
 * - A job resuming from a wait does not consume an attempt; its wait fields are cleared.
 * - History (migration 018): each claimed job keeps its attempt's `processing` event in its row
 *   (claimSet), so a claim writes no row of job_events, but for an event a job kept there
 *   before and never wrote out (a process of an earlier version failed it), which it writes
 *   out first.
 */
/**
 * The window of a claim of `batchSize` jobs: a few times the batch, so concurrent claimers find
 * enough unlocked jobs; after a round that parked jobs, a wider one (up to MAX_CLAIM_WINDOW), so
 * a long run of blocked jobs is parked in few rounds.
 */
export function claimWindow(batchSize: number, previous?: number): number {
  if (previous === undefined) return 4 * batchSize + 16;
  return Math.max(previous, Math.min(previous * 4, MAX_CLAIM_WINDOW));
}

/** The widest window, which bounds the work of one claim statement. */
export const MAX_CLAIM_WINDOW = 1_000;

export function claimJobsSql(t: SchemaNames, { grouped }: { grouped: boolean }): string {
  const groupLoad = (alias: string) =>
    `(SELECT count(*) FROM ${t.jobs} g WHERE g.group_id = ${alias}.group_id AND g.status = 'processing')`;
  const unmetPrerequisites = `j.depends_on_job_ids IS NOT NULL AND EXISTS (
      SELECT 1 FROM ${t.jobs} p WHERE p.id = ANY(j.depends_on_job_ids) AND p.status <> 'completed')`;
  const barrierHolds = `j.depends_on_tags IS NOT NULL AND NOT ${t.tagBarrierClear}(j.depends_on_tags, j.id)`;
  // Without a group limit ($5 NULL) the statement has no group checks at all: the planner then
  // costs its generic plan like a custom one and keeps it, instead of planning every claim.
  const groupFull = grouped
    ? `$5::integer IS NOT NULL AND j.group_id IS NOT NULL AND ${groupLoad('j')} >= $5::integer`
    : 'false';
  const eligible = `j.ready_at <= $1::timestamptz AND NOT (${unmetPrerequisites})
    AND NOT (${barrierHolds}) AND NOT (${groupFull})`;
  const candidate = 'j.id, j.group_id, j.priority, j.created_at';
  const best = 'ORDER BY j.priority DESC, j.created_at, j.id';
  return `
WITH newly_due AS MATERIALIZED (
  -- The scheduled lane up to now: jobs that became due since a claim last looked, with what
  -- the checks below read, so they are never looked up again.
  SELECT ${candidate}, j.job_type, j.ready_at, j.depends_on_job_ids, j.depends_on_tags, j.ctid AS row_ctid,
    ${keptProcessingEvent('j')}
  FROM ${t.jobs} j
  WHERE j.ctid = ANY(ARRAY(SELECT ${t.becameDue}($1::timestamptz)))
    AND j.ready_at > COALESCE(j.promoted_at, j.created_at) AND j.ready_at <= $1::timestamptz
  FOR UPDATE SKIP LOCKED
),
walked AS MATERIALIZED (
  -- The head of the due lane, read without locks; each job with why it cannot run now, if so.
  SELECT ${candidate}, j.depends_on_job_ids, j.depends_on_tags, j.row_ctid,
    CASE WHEN j.ready_at > $1::timestamptz THEN 'not_due'
      WHEN ${unmetPrerequisites} THEN 'prerequisites'
      WHEN ${barrierHolds} THEN 'tag_barrier'
      WHEN ${groupFull} THEN 'group_full'
    END AS blocked_by
  FROM ${t.dueHead}($4::text[], ${WINDOW}) j
),
candidates AS MATERIALIZED (
  SELECT c.id, c.group_id, c.priority, c.created_at, c.row_ctid, c.kept_event_id, c.kept_event_at FROM (
    SELECT * FROM (
      -- The eligible jobs of the window, locked: a job claimed or parked meanwhile fails the
      -- test. Not the lane's predicate: the planner would walk job_queue_due_idx for these rows.
      SELECT ${candidate}, j.ctid AS row_ctid, ${keptProcessingEvent('j')} FROM ${t.jobs} j
      WHERE j.ctid = ANY(ARRAY(SELECT w.row_ctid FROM walked w WHERE w.blocked_by IS NULL))
        AND j.ready_at <= $1::timestamptz AND NOT j.parked
      ${best} LIMIT $3
      FOR UPDATE SKIP LOCKED
    ) due
    UNION ALL
    SELECT * FROM (
      -- Sorted first, then checked until $3 pass: the planner cannot tell how many jobs
      -- became due, and costing the checks for all of them would make it JIT-compile.
      SELECT ${candidate}, j.row_ctid, j.kept_event_id, j.kept_event_at FROM (
        SELECT * FROM newly_due n WHERE $4::text[] IS NULL OR n.job_type = ANY($4::text[])
        ORDER BY n.priority DESC, n.created_at, n.id
        OFFSET 0
      ) j
      WHERE ${eligible}
      ${best} LIMIT $3
    ) promoted
  ) c
  ORDER BY c.priority DESC, c.created_at, c.id
  LIMIT $3
),
admitted AS (
  SELECT r.id, r.row_ctid, r.kept_event_id, r.kept_event_at FROM (
    SELECT c.id, c.group_id, c.row_ctid, c.kept_event_id, c.kept_event_at,
      row_number() OVER (PARTITION BY c.group_id ORDER BY c.priority DESC, c.created_at, c.id) AS n
    FROM candidates c
  ) r
  WHERE ${grouped ? `$5::integer IS NULL OR r.group_id IS NULL OR r.n + ${groupLoad('r')} <= $5::integer` : 'true'}
),
parked AS (
  -- Out of the due lane: the blocked jobs of the window that no one else holds, each once a
  -- job blocking it is locked, so that job's end (which puts it back) follows this commit.
  UPDATE ${t.jobs} j SET parked = true, parked_reason = w.blocked_by
  FROM walked w
  WHERE j.id = w.id AND ${IN_DUE_LANE}
    AND j.ctid = ANY(ARRAY(
      SELECT x.ctid FROM ${t.jobs} x JOIN walked b ON b.id = x.id
      WHERE b.blocked_by IN ('prerequisites', 'tag_barrier', 'group_full')
        AND ${t.stillBlocked}(b.blocked_by, b.id, b.depends_on_job_ids, b.depends_on_tags, b.group_id, $5::integer)
      FOR UPDATE OF x SKIP LOCKED))
  RETURNING j.id
),
claimed AS (
  UPDATE ${t.jobs} j
  ${claimSet(t)}
  -- By address: a join could hash the whole table, a lookup by id become a scan of it.
  WHERE j.ctid = ANY(ARRAY(SELECT a.row_ctid FROM admitted a))
  RETURNING ${CLAIMED_COLUMNS.map((c) => `j.${c}`).join(', ')}
),
promoted AS (
  -- Into the due lane; not the claimed ones, which claimed updates (a row is updated once).
  -- By address, whatever the statistics say about newly_due.
  UPDATE ${t.jobs} j SET promoted_at = $1::timestamptz
  WHERE j.ctid = ANY(ARRAY(SELECT n.row_ctid FROM newly_due n WHERE NOT EXISTS (SELECT 1 FROM admitted a WHERE a.id = n.id)))
),
claimed_events AS (
  -- A job keeps its attempt's event in its row; one it kept there before (left by a process of
  -- an earlier version, which wrote its own events) becomes a row of job_events first.
  ${writeOutKeptProcessing(t, 'admitted', 's.id IN (SELECT id FROM claimed)')}
)
SELECT ${CLAIMED_COLUMNS.map((c) => `c.${c}`).join(', ')}, p.passed_over
FROM (
  SELECT (SELECT count(*) FROM parked)${grouped ? ' + (SELECT count(*) FROM candidates) - (SELECT count(*) FROM admitted)' : ''}
    AS passed_over
) p LEFT JOIN claimed c ON true
ORDER BY c.priority DESC, c.created_at, c.id`;
}

/**
 * The claim by id of the job a wake-up announced (a single added job): $1 now, $2 worker, $3 job
 * id, $4 job types (text[] or NULL), $5 groupConcurrency (NULL for unlimited). It touches that
 * row and the first entry of job_queue_due_idx only, and claims nothing (the caller then runs the
 * ordered claim) unless the job is what the ordered claim would take first:
 * - it is due, in the due lane, of a wanted type, and has no dependencies (so no check to run);
 * - under a group limit, it has no group (so the claim needs no group lock);
 * - it is the first job of the due lane in claim order (priority DESC, created_at, id), and no
 *   job of the scheduled lane has become due (it could be more urgent and is not ordered yet).
 * A more urgent job that is not claimable (blocked, of another type, locked by another claim)
 * also sends the caller to the ordered claim: the fast path never reorders, it only gives way.
 * Rows: the claimed job, or none.
 */
export function claimJobByIdSql(t: SchemaNames): string {
  return `
-- claim by id (the job a wake-up announced)
WITH target AS MATERIALIZED (
  SELECT j.id, ${keptProcessingEvent('j')} FROM ${t.jobs} j
  WHERE j.id = $3::bigint AND j.ready_at <= $1::timestamptz AND ${IN_DUE_LANE}
    AND j.depends_on_job_ids IS NULL AND j.depends_on_tags IS NULL
    AND ($5::integer IS NULL OR j.group_id IS NULL)
    AND ($4::text[] IS NULL OR j.job_type = ANY($4::text[]))
    AND j.id = (
      SELECT u.id FROM ${t.jobs} u WHERE u.ready_at <= COALESCE(u.promoted_at, u.created_at) AND NOT u.parked
      ORDER BY u.priority DESC, u.created_at, u.id LIMIT 1)
    -- The earliest job of the scheduled lane, read from the front of job_queue_scheduled_idx
    -- (a range test up to $1 could be planned as a scan of every job).
    AND NOT COALESCE((
      SELECT s.ready_at FROM ${t.jobs} s WHERE s.ready_at > COALESCE(s.promoted_at, s.created_at)
      ORDER BY s.ready_at LIMIT 1) <= $1::timestamptz, false)
  FOR UPDATE SKIP LOCKED
),
claimed AS (
  UPDATE ${t.jobs} j
  ${claimSet(t)}
  WHERE j.id = (SELECT id FROM target)
  RETURNING ${CLAIMED_COLUMNS.map((c) => `j.${c}`).join(', ')}
),
claimed_events AS (
  ${writeOutKeptProcessing(t, 'target', 's.id IN (SELECT id FROM claimed)')}
)
SELECT ${CLAIMED_COLUMNS.map((c) => `c.${c}`).join(', ')} FROM claimed c`;
}

/**
 * The rows `j` of the jobs of CTE `input` (x: job_id, worker_id) still processing and locked by
 * their worker: the fence of a batch of outcomes. The jobs are read by their ids through the
 * primary key, never by scanning what an index holds as processing. The partial indexes on
 * `status = 'processing'` (job_queue_locked_at_idx, job_queue_group_processing_idx) and
 * job_queue_status_idx keep an entry for every claim since the last VACUUM, as every row version
 * keeps its own, and the planner, which sees few live rows there, preferred a bitmap scan of
 * job_queue_locked_at_idx that visited them all: a completion read 945 buffers after 20,000 jobs
 * processed without a VACUUM, 166 before. `IS NOT DISTINCT FROM` says of a status (never NULL)
 * what `=` says, but no index predicate or key matches it; `= ANY` of the ids, an array the
 * planner counts as a few elements, makes the primary key the cheap way in.
 */
const HELD_INPUT_ROWS = `j.id = ANY(ARRAY(SELECT job_id FROM input)) AND j.id = x.job_id
    AND j.locked_by = x.worker_id AND j.status IS NOT DISTINCT FROM 'processing'`;

/**
 * Records completions: $1 JSON array of { job_id, worker_id, has_output, output }, $2 now,
 * $3 channel. Progress is kept, step data and the lock cleared; the `completed` event is kept in
 * the row beside the attempt's `processing` event (migration 018). Adds them to the minute's
 * throughput counter. Wakes processors when a pending job depends on
 * a completed one (by id or tag barrier). Rows: id.
 */
export function completeJobsSql(t: SchemaNames): string {
  return `
WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(job_id bigint, worker_id text, has_output boolean, output jsonb)
),
done AS (
  UPDATE ${t.jobs} j
  SET status = 'completed', completed_at = $2, updated_at = $2, step_data = NULL, locked_at = NULL, locked_by = NULL,
      output = CASE WHEN x.has_output THEN COALESCE(x.output, 'null'::jsonb) ELSE j.output END,
      -- The completed event, kept in the row beside the attempt's processing event (migration 018).
      completed_event_id = ${nextEventId(t)}
  FROM input x
  WHERE ${HELD_INPUT_ROWS}
  RETURNING j.id, j.tags
),
counted AS (
  ${countAttemptsSql(t, 'completed', '$2::timestamptz', 'done')}
),
unblocked AS (
  -- Only a hint for processors elsewhere (a wake-up), so a superset is fine: a pending job
  -- naming a completed id, or sharing a tag with one through dependsOn.tags. A function (see
  -- migration 005), so its cost follows those jobs and never the pending ones, whatever the
  -- statistics say.
  SELECT 1 WHERE ${t.hasPendingDependents}(
    (SELECT array_agg(id) FROM done),
    (SELECT array_agg(DISTINCT tag) FROM done, unnest(done.tags) AS tag))
),
notified AS (
  SELECT pg_notify($3, '') FROM unblocked
)
SELECT id, (SELECT count(*) FROM notified) AS notified FROM done ORDER BY id`;
}

/** The failures of a failJobs call: $1, a JSON array of { job_id, worker_id, message, reason, retry_at, stack }. */
const FAIL_INPUT = `input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb)
    AS x(job_id bigint, worker_id text, message text, reason text, retry_at timestamptz, stack text)
)`;

/**
 * CTE `src`: the jobs of the failures (FAIL_INPUT) still processing and locked by their worker,
 * locked first, with the failure's fields, the job's `columns` (a list ending in a comma, or '')
 * and its kept `processing` event: the event the update then clears is the one written out.
 */
const lockedFailures = (t: SchemaNames, columns: string) => `src AS MATERIALIZED (
  SELECT j.id, ${columns}x.message, x.reason, x.retry_at, x.stack, ${keptProcessingEvent('j')}
  FROM input x JOIN ${t.jobs} j ON ${HELD_INPUT_ROWS}
  ORDER BY j.id
  FOR UPDATE OF j
)`;

/**
 * Records failures that an automatic retry follows, at each one's `retry_at`: $1 the failures
 * (FAIL_INPUT), $2 now, $3 now as ISO text, $4 channel. Each job changes only while processing
 * and locked by its worker; the lock is cleared, and the attempt's kept `processing` event is
 * written out of the row (migration 018). Rows: id of each failure recorded.
 */
export function failJobsForRetrySql(t: SchemaNames): string {
  return `
WITH ${FAIL_INPUT},
${lockedFailures(t, '')},
failed AS (
  UPDATE ${t.jobs} j
  SET status = 'failed', failure_reason = s.reason, next_attempt_at = s.retry_at,
      last_failed_at = $2::timestamptz, updated_at = $2::timestamptz, locked_at = NULL, locked_by = NULL,
      error_history = j.error_history || jsonb_build_array(${errorEntry('s.message', '$3::text', 's.stack')}),
      ${CLEAR_KEPT_PROCESSING}
  FROM src s
  WHERE j.id = s.id
  RETURNING j.id, s.message, s.reason
),
kept_events AS (${writeOutKeptProcessing(t, 'src')}
),
failed_events AS (
  INSERT INTO ${t.events} (job_id, event_type, created_at, metadata)
  SELECT id, 'failed', $2::timestamptz, jsonb_build_object('message', message, 'failureReason', reason,
    'willRetry', true, 'deadLetterJobId', NULL)
  FROM failed ORDER BY id
),
counted AS (
  ${countAttemptsSql(t, 'failed', '$2::timestamptz', 'failed')}
),
notified AS (
  SELECT pg_notify($4, '') WHERE EXISTS (SELECT 1 FROM failed)
)
SELECT id, (SELECT count(*) FROM notified) AS notified FROM failed ORDER BY id`;
}

/**
 * Records final failures (no retry follows): $1 the failures (FAIL_INPUT, retry_at NULL), $2
 * now, $3 now as ISO text, $4 channel. Each job changes only while processing and locked by its
 * worker; the lock is cleared, the attempt's kept `processing` event written out of the row
 * (migration 018), and a job with a dead-letter type is routed to it. Its dependents
 * are cancelled afterwards by cascadeLevelSql, in the same transaction.
 * Rows: kind 'failed' with id and dl_id (its dead-letter job, or NULL); one 'notified' row.
 */
export function failJobsFinalSql(t: SchemaNames): string {
  return `
WITH ${FAIL_INPUT},
${lockedFailures(t, 'j.job_type, j.payload, j.attempts, j.max_attempts, j.dead_letter_job_type, ')},
dl AS MATERIALIZED (
  SELECT s.id AS src_id, nextval('${t.jobIdSeq}'::regclass) AS id, s.dead_letter_job_type AS job_type,
    ${deadLetterEnvelope('s', 's.message', 's.reason', '$3::text')} AS payload
  FROM (SELECT * FROM src WHERE dead_letter_job_type IS NOT NULL ORDER BY id) s
),
failed AS (
  UPDATE ${t.jobs} j
  SET status = 'failed', failure_reason = s.reason, next_attempt_at = NULL,
      last_failed_at = $2::timestamptz, updated_at = $2::timestamptz, locked_at = NULL, locked_by = NULL,
      error_history = j.error_history || jsonb_build_array(${errorEntry('s.message', '$3::text', 's.stack')}),
      dead_letter_job_id = COALESCE(dl.id, j.dead_letter_job_id),
      dead_lettered_at = CASE WHEN dl.id IS NULL THEN j.dead_lettered_at ELSE $2::timestamptz END,
      ${CLEAR_KEPT_PROCESSING}
  FROM src s LEFT JOIN dl ON dl.src_id = s.id
  WHERE j.id = s.id
  RETURNING j.id, dl.id AS dl_id, s.message, s.reason
),
kept_events AS (${writeOutKeptProcessing(t, 'src')}
),
failed_events AS (
  INSERT INTO ${t.events} (job_id, event_type, created_at, metadata)
  SELECT id, 'failed', $2::timestamptz, jsonb_build_object('message', message, 'failureReason', reason,
    'willRetry', false, 'deadLetterJobId', dl_id)
  FROM failed ORDER BY id
),
counted AS (
  ${countAttemptsSql(t, 'failed', '$2::timestamptz', 'failed')}
),
${deadLetterInsertCtes(t, 'dl', '$2::timestamptz')},
notified AS (
  SELECT pg_notify($4, '') FROM (SELECT 1 FROM dead_letters LIMIT 1) s
)
SELECT 'failed' AS kind, id, dl_id FROM failed
UNION ALL SELECT 'notified', count(*), NULL FROM notified`;
}

/** $1 id, $2 worker, $3 now, $4 timeoutMs (NULL: heartbeat only). Rows: id when still ours. */
export function prolongJobSql(t: SchemaNames): string {
  return `
WITH prolonged AS (
  UPDATE ${t.jobs} SET locked_at = $3, updated_at = $3
  WHERE id = $1 AND status = 'processing' AND locked_by = $2
  RETURNING id
),
prolonged_events AS (
  INSERT INTO ${t.events} (job_id, event_type, created_at, metadata)
  SELECT id, 'prolonged', $3, jsonb_build_object('timeoutMs', $4::integer) FROM prolonged
)
SELECT id FROM prolonged`;
}

/** $1 id, $2 worker, $3 progress, $4 now. */
export function setProgressSql(t: SchemaNames): string {
  return `UPDATE ${t.jobs} SET progress = $3, updated_at = $4
WHERE id = $1 AND status = 'processing' AND locked_by = $2 RETURNING id`;
}

/** $1 id, $2 worker, $3 output (JSON text), $4 now. */
export function setOutputSql(t: SchemaNames): string {
  return `UPDATE ${t.jobs} SET output = $3::jsonb, updated_at = $4
WHERE id = $1 AND status = 'processing' AND locked_by = $2 RETURNING id`;
}
