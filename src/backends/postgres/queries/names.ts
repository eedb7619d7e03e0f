/**
 * Schema-qualified names of the queue's tables. The schema was validated as an identifier when
 * the queue was configured; quoteIdent refuses anything else, so no SQL is ever built from
 * unvalidated input.
 */
import { createHash } from 'node:crypto';
import { quoteIdent } from '../../../config.js';

export interface SchemaNames {
  /** `"schema".job_queue` */
  jobs: string;
  /** `"schema".job_events` */
  events: string;
  /** `"schema".cron_schedules` */
  cronSchedules: string;
  /** `"schema".waitpoint_tokens` */
  tokens: string;
  /** `"schema".job_throughput`, the counters of completed and failed attempts per minute (migration 012). */
  throughput: string;
  /** `"schema".job_queue_tag_barrier_clear`, the tag-barrier check of the migrations. */
  tagBarrierClear: string;
  /** `"schema".job_queue_still_blocked`, the locked recheck before a claim parks a job (migration 006). */
  stillBlocked: string;
  /** `"schema".job_queue_due_head`, the claim's read of the due lane (migration 008). */
  dueHead: string;
  /** `"schema".job_queue_became_due`, the claim's read of the scheduled lane up to now (migration 008). */
  becameDue: string;
  /** `"schema".job_queue_has_pending_dependents`, the completion's wake-up hint (migration 005). */
  hasPendingDependents: string;
  /** `"schema".job_queue_has_live_dependents`, whether a level of the cascade cancels anything (migration 017). */
  hasLiveDependents: string;
  /** `"schema".job_queue_status_batch`, the jobs of one batch of a bulk action by filter (migration 019). */
  statusBatch: string;
  /** `"schema".job_queue_cleanup_batch`, the finished jobs of one cleanup batch (migration 007). */
  jobsCleanupBatch: string;
  /** `"schema".job_queue_count_newest`, the job types of the newest jobs of each status (migration 012). */
  countNewest: string;
  /** `"schema".job_queue_added_events_floor`: the `added` events kept in the rows of jobs below its id are removed (migration 014). */
  addedEventsFloor: string;
  /** `"schema".job_queue_added_events_cleanup`, one batch of the cleanup of `added` events kept in rows (migration 014). */
  addedEventsCleanup: string;
  /** `"schema".job_queue_run_events_floor`: the events kept in the rows of finished jobs below it are removed (migration 018). */
  runEventsFloor: string;
  /** `"schema".job_queue_run_events_cleanup`, one batch of the cleanup of the run events kept in rows (migration 018). */
  runEventsCleanup: string;
  /** Text of the regclass literal of the job id sequence, for `nextval('...')`. */
  jobIdSeq: string;
  /** Text of the regclass literal of the event id sequence (the events a job keeps in its row, migrations 013 and 018). */
  eventIdSeq: string;
  /** NOTIFY channel announcing that jobs may be available (case-sensitive, at most 63 bytes). */
  channel: string;
}

const NAMEDATALEN = 63;

export function schemaNames(schema: string): SchemaNames {
  const s = quoteIdent(schema);
  return {
    jobs: `${s}.job_queue`,
    events: `${s}.job_events`,
    cronSchedules: `${s}.cron_schedules`,
    tokens: `${s}.waitpoint_tokens`,
    throughput: `${s}.job_throughput`,
    jobIdSeq: `${s}.job_queue_id_seq`,
    eventIdSeq: `${s}.job_events_id_seq`,
    tagBarrierClear: `${s}.job_queue_tag_barrier_clear`,
    stillBlocked: `${s}.job_queue_still_blocked`,
    hasPendingDependents: `${s}.job_queue_has_pending_dependents`,
    hasLiveDependents: `${s}.job_queue_has_live_dependents`,
    dueHead: `${s}.job_queue_due_head`,
    becameDue: `${s}.job_queue_became_due`,
    statusBatch: `${s}.job_queue_status_batch`,
    jobsCleanupBatch: `${s}.job_queue_cleanup_batch`,
    countNewest: `${s}.job_queue_count_newest`,
    addedEventsFloor: `${s}.job_queue_added_events_floor`,
    addedEventsCleanup: `${s}.job_queue_added_events_cleanup`,
    runEventsFloor: `${s}.job_queue_run_events_floor`,
    runEventsCleanup: `${s}.job_queue_run_events_cleanup`,
    channel: notifyChannel(schema),
  };
}

/** One channel per schema, so queues on different schemas never wake each other. */
export function notifyChannel(schema: string): string {
  const plain = `queuedev_${schema}`;
  if (plain.length <= NAMEDATALEN) return plain;
  return `queuedev_${createHash('sha256').update(schema).digest('hex').slice(0, 40)}`;
}
