/**
 * Row ↔ record mapping (jobs, events, cron schedules, waitpoint tokens). pg returns BIGINT (and BIGINT[]) as strings to keep precision; job
 * ids stay far below 2^53, so they are converted to numbers here.
 */
import type { ClaimedJob } from '../../backend.js';
import type {
  CronScheduleRecord,
  CronScheduleStatus,
  ErrorHistoryEntry,
  FailureReason,
  JobEvent,
  JobEventType,
  JobRecord,
  JobStatus,
  WaitToken,
  WaitTokenStatus,
} from '../../types.js';

/** Every column of job_queue a JobRecord needs, for SELECT and RETURNING lists. */
export const JOB_COLUMNS = [
  'id',
  'job_type',
  'payload',
  'status',
  'attempts',
  'max_attempts',
  'priority',
  'run_at',
  'next_attempt_at',
  'timeout_ms',
  'force_kill_on_timeout',
  'tags',
  'idempotency_key',
  'retry_delay',
  'retry_backoff',
  'retry_delay_max',
  'dead_letter_job_type',
  'dead_lettered_at',
  'dead_letter_job_id',
  'group_id',
  'group_tier',
  'depends_on_job_ids',
  'depends_on_tags',
  'pending_reason',
  'error_history',
  'failure_reason',
  'progress',
  'output',
  'step_data',
  'wait_until',
  'wait_token_id',
  'created_at',
  'updated_at',
  'locked_at',
  'locked_by',
  'started_at',
  'completed_at',
  'last_retried_at',
  'last_failed_at',
  'last_cancelled_at',
] as const;

/** `j.id, j.job_type, ...` for a table aliased `alias`. */
export function jobColumns(alias: string): string {
  return JOB_COLUMNS.map((c) => `${alias}.${c}`).join(', ');
}

export interface JobRow {
  id: string | number;
  job_type: string;
  payload: unknown;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  priority: number;
  run_at: Date;
  next_attempt_at: Date | null;
  timeout_ms: number | null;
  force_kill_on_timeout: boolean;
  tags: string[] | null;
  idempotency_key: string | null;
  retry_delay: number | null;
  retry_backoff: boolean | null;
  retry_delay_max: number | null;
  dead_letter_job_type: string | null;
  dead_lettered_at: Date | null;
  dead_letter_job_id: string | number | null;
  group_id: string | null;
  group_tier: string | null;
  depends_on_job_ids: (string | number)[] | null;
  depends_on_tags: string[] | null;
  pending_reason: string | null;
  error_history: ErrorHistoryEntry[] | null;
  failure_reason: FailureReason | null;
  progress: number | null;
  output: unknown;
  step_data: Record<string, unknown> | null;
  wait_until: Date | null;
  wait_token_id: string | null;
  created_at: Date;
  updated_at: Date;
  locked_at: Date | null;
  locked_by: string | null;
  started_at: Date | null;
  completed_at: Date | null;
  last_retried_at: Date | null;
  last_failed_at: Date | null;
  last_cancelled_at: Date | null;
}

function toId(value: string | number): number {
  return typeof value === 'number' ? value : Number(value);
}

function toIdOrNull(value: string | number | null): number | null {
  return value === null ? null : toId(value);
}

function groupOf(row: Pick<JobRow, 'group_id' | 'group_tier'>): JobRecord['group'] {
  if (row.group_id === null) return null;
  return row.group_tier === null ? { id: row.group_id } : { id: row.group_id, tier: row.group_tier };
}

export function rowToJob(row: JobRow): JobRecord {
  return {
    id: toId(row.id),
    jobType: row.job_type,
    payload: row.payload,
    status: row.status,
    createdAt: row.created_at,
    updated_at: row.updated_at,
    updatedAt: row.updated_at,
    locked_at: row.locked_at,
    lockedAt: row.locked_at,
    locked_by: row.locked_by,
    lockedBy: row.locked_by,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    nextAttemptAt: row.next_attempt_at,
    priority: row.priority,
    runAt: row.run_at,
    pendingReason: row.pending_reason,
    errorHistory: row.error_history ?? [],
    timeoutMs: row.timeout_ms,
    forceKillOnTimeout: row.force_kill_on_timeout,
    failureReason: row.failure_reason,
    completedAt: row.completed_at,
    startedAt: row.started_at,
    lastRetriedAt: row.last_retried_at,
    lastFailedAt: row.last_failed_at,
    lastCancelledAt: row.last_cancelled_at,
    tags: row.tags ?? [],
    idempotencyKey: row.idempotency_key,
    progress: row.progress,
    output: row.output ?? null,
    retryDelay: row.retry_delay,
    retryBackoff: row.retry_backoff,
    retryDelayMax: row.retry_delay_max,
    deadLetterJobType: row.dead_letter_job_type,
    deadLetteredAt: row.dead_lettered_at,
    deadLetterJobId: toIdOrNull(row.dead_letter_job_id),
    group: groupOf(row),
    dependsOnJobIds: row.depends_on_job_ids === null ? null : row.depends_on_job_ids.map(toId),
    dependsOnTags: row.depends_on_tags,
    waitUntil: row.wait_until,
    waitTokenId: row.wait_token_id,
    stepData: row.step_data,
  };
}

/** The columns a claim returns: those of a ClaimedJob, and the trace context (migration 011). */
export const CLAIMED_COLUMNS = [
  'id',
  'job_type',
  'payload',
  'status',
  'attempts',
  'max_attempts',
  'priority',
  'run_at',
  'created_at',
  'timeout_ms',
  'force_kill_on_timeout',
  'retry_delay',
  'retry_backoff',
  'retry_delay_max',
  'group_id',
  'group_tier',
  'step_data',
  'locked_at',
  'locked_by',
  'started_at',
  'trace_context',
] as const;

/** A row of the claim statements (CLAIMED_COLUMNS). */
export type ClaimedJobRow = Pick<JobRow, Exclude<(typeof CLAIMED_COLUMNS)[number], 'trace_context'>> & {
  trace_context: string | null;
};

/** A claimed job, with the trace context stored with it when there is one. */
export function rowToClaimedJob(row: ClaimedJobRow): ClaimedJob {
  const job: ClaimedJob = {
    id: toId(row.id),
    jobType: row.job_type,
    payload: row.payload,
    status: row.status,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    priority: row.priority,
    runAt: row.run_at,
    createdAt: row.created_at,
    timeoutMs: row.timeout_ms,
    forceKillOnTimeout: row.force_kill_on_timeout,
    retryDelay: row.retry_delay,
    retryBackoff: row.retry_backoff,
    retryDelayMax: row.retry_delay_max,
    group: groupOf(row),
    stepData: row.step_data,
    lockedAt: row.locked_at,
    lockedBy: row.locked_by,
    startedAt: row.started_at,
  };
  if (row.trace_context !== null) job.traceContext = row.trace_context;
  return job;
}

export interface EventRow {
  id: string | number;
  job_id: string | number;
  event_type: JobEventType;
  created_at: Date;
  metadata: unknown;
}

export function rowToEvent(row: EventRow): JobEvent {
  return {
    id: toId(row.id),
    jobId: toId(row.job_id),
    eventType: row.event_type,
    createdAt: row.created_at,
    metadata: row.metadata ?? null,
  };
}

/** `{ id, cascade_from }` rows of a cascade, as the Backend reports them. */
export function toCascaded(
  rows: { id: string | number; cascade_from: string | number }[],
): { jobId: number; cascadeFrom: number }[] {
  return rows.map((r) => ({ jobId: toId(r.id), cascadeFrom: toId(r.cascade_from) }));
}

/** Every column of cron_schedules a CronScheduleRecord needs. */
export const CRON_COLUMNS = [
  'id',
  'schedule_name',
  'cron_expression',
  'job_type',
  'payload',
  'timezone',
  'allow_overlap',
  'status',
  'max_attempts',
  'priority',
  'timeout_ms',
  'tags',
  'retry_delay',
  'retry_backoff',
  'retry_delay_max',
  'last_enqueued_at',
  'last_job_id',
  'next_run_at',
  'created_at',
  'updated_at',
] as const;

export interface CronRow {
  id: string | number;
  schedule_name: string;
  cron_expression: string;
  job_type: string;
  payload: unknown;
  timezone: string;
  allow_overlap: boolean;
  status: CronScheduleStatus;
  max_attempts: number;
  priority: number;
  timeout_ms: number | null;
  tags: string[] | null;
  retry_delay: number | null;
  retry_backoff: boolean | null;
  retry_delay_max: number | null;
  last_enqueued_at: Date | null;
  last_job_id: string | number | null;
  next_run_at: Date;
  created_at: Date;
  updated_at: Date;
}

export function rowToCronSchedule(row: CronRow): CronScheduleRecord {
  return {
    id: toId(row.id),
    scheduleName: row.schedule_name,
    cronExpression: row.cron_expression,
    jobType: row.job_type,
    payload: row.payload,
    timezone: row.timezone,
    allowOverlap: row.allow_overlap,
    status: row.status,
    maxAttempts: row.max_attempts,
    priority: row.priority,
    timeoutMs: row.timeout_ms,
    tags: row.tags ?? [],
    retryDelay: row.retry_delay,
    retryBackoff: row.retry_backoff,
    retryDelayMax: row.retry_delay_max,
    lastEnqueuedAt: row.last_enqueued_at,
    lastJobId: toIdOrNull(row.last_job_id),
    nextRunAt: row.next_run_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Every column of waitpoint_tokens a WaitToken needs. */
export const TOKEN_COLUMNS = [
  'id',
  'job_id',
  'status',
  'output',
  'timeout_at',
  'created_at',
  'completed_at',
  'tags',
] as const;

export interface TokenRow {
  id: string;
  job_id: string | number | null;
  status: WaitTokenStatus;
  output: unknown;
  timeout_at: Date | null;
  created_at: Date;
  completed_at: Date | null;
  tags: string[] | null;
}

export function rowToToken(row: TokenRow): WaitToken {
  return {
    id: row.id,
    jobId: toIdOrNull(row.job_id),
    status: row.status,
    output: row.output ?? null,
    timeoutAt: row.timeout_at,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    tags: row.tags ?? [],
  };
}

export { toId };
