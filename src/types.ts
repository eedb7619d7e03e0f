/**
 * Public types of queuedev.
 *
 * Glossary
 * - job: one unit of work, a `jobType` plus a JSON `payload`, stored by a backend.
 * - backend: where jobs live: PostgreSQL (`'postgres'`, default) or Redis (`'redis'`).
 * - processor: claims due jobs and runs the handler registered for their type.
 * - claim: the atomic move of a job from pending (or a due retry or wait) to processing.
 * - attempt: one run of a handler; `attempts` counts them, `maxAttempts` caps them.
 * - dead letter: a new job of `deadLetterJobType` created when a job runs out of attempts.
 * - idempotency key: at most one job exists per key until the job is cleaned up.
 * - tag drain (`dependsOn.tags`): a job waits while any other active job carries all the tags.
 * - group: jobs sharing `group.id` are limited by `groupConcurrency` across all processors.
 * - supervisor: a maintenance loop that reclaims stuck jobs and cleans up old data.
 * - wait: a handler pauses (`waitFor`, `waitUntil`, `waitForToken`); the job is `waiting`.
 */

/** A job's lifecycle state (SPEC §3). */
export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled' | 'waiting';

export const JOB_STATUSES: readonly JobStatus[] = [
  'pending',
  'processing',
  'completed',
  'failed',
  'cancelled',
  'waiting',
];

/** Why the last attempt failed (SPEC §2.4). */
export type FailureReason = 'timeout' | 'handler_error' | 'no_handler';

/** How `tags.values` are matched (SPEC §2.7). */
export type TagQueryMode = 'exact' | 'all' | 'any' | 'none';

export const TAG_QUERY_MODES: readonly TagQueryMode[] = ['exact', 'all', 'any', 'none'];

/**
 * Why a pending job is not claimed yet (`getHoldReasons`): `scheduled` (its runAt is in the
 * future), `dependencies` (a `dependsOn.jobIds` job is not completed, or another active job
 * carries every `dependsOn.tags` tag), `group` (a claim found its group at `groupConcurrency`),
 * or `due` (nothing holds it: the next free processor takes it, by priority).
 */
export type JobHoldReason = 'scheduled' | 'dependencies' | 'group' | 'due';

/** Event types recorded in a job's history (SPEC §6.1). */
export type JobEventType =
  | 'added'
  | 'processing'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'retried'
  | 'edited'
  | 'prolonged'
  | 'waiting'
  | 'released';

/** Maps job types to their payload types, for typed `addJob` and handlers. */
// `any` (not `unknown`) so that payload maps declared as interfaces are accepted too.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PayloadMap = Record<string, any>;

// The configuration of initJobQueue and the options of operations live in their own files.
export * from './queue-config-types.js';
export * from './option-types.js';
export * from './overview-types.js';
export * from './payload-types.js';
import type { JobGroup } from './option-types.js';

/** One failed attempt of a job, oldest first in `errorHistory`. */
export interface ErrorHistoryEntry {
  message: string;
  /** When the attempt failed (ISO-8601). */
  timestamp: string;
  /**
   * The stack trace of the error the handler threw, cut to 4096 characters with a marker.
   * Absent for timeouts, reclaims, a missing handler, a thrown value that is not an Error, and
   * failures recorded before this field existed.
   */
  stack?: string | undefined;
}

/** A stored job (SPEC §2.3, DETAILS "Records and names"). */
export interface JobRecord<P = unknown> {
  id: number;
  jobType: string;
  payload: P;
  status: JobStatus;
  createdAt: Date;
  updated_at: Date;
  updatedAt: Date;
  locked_at: Date | null;
  lockedAt: Date | null;
  locked_by: string | null;
  lockedBy: string | null;
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: Date | null;
  priority: number;
  runAt: Date;
  pendingReason: string | null;
  errorHistory: ErrorHistoryEntry[];
  timeoutMs: number | null;
  forceKillOnTimeout: boolean;
  failureReason: FailureReason | null;
  completedAt: Date | null;
  startedAt: Date | null;
  lastRetriedAt: Date | null;
  lastFailedAt: Date | null;
  lastCancelledAt: Date | null;
  tags: string[];
  idempotencyKey: string | null;
  progress: number | null;
  output: unknown;
  retryDelay: number | null;
  retryBackoff: boolean | null;
  retryDelayMax: number | null;
  deadLetterJobType: string | null;
  deadLetteredAt: Date | null;
  deadLetterJobId: number | null;
  group: JobGroup | null;
  dependsOnJobIds: number[] | null;
  dependsOnTags: string[] | null;
  /** When a waiting job resumes on its own (`waitFor` / `waitUntil`). */
  waitUntil: Date | null;
  /** The token a waiting job waits on. */
  waitTokenId: string | null;
  /** Results of completed `ctx.run` steps, by step name. */
  stepData: Record<string, unknown> | null;
}

/** A history record (SPEC §2.8). */
export interface JobEvent {
  id: number;
  jobId: number;
  eventType: JobEventType;
  createdAt: Date;
  metadata: unknown;
}

/** State of a cron schedule (SPEC §3): paused schedules are skipped by automatic enqueueing. */
export type CronScheduleStatus = 'active' | 'paused';

/** A stored cron schedule (DETAILS "Cron schedule record"). */
export interface CronScheduleRecord<P = unknown> {
  id: number;
  scheduleName: string;
  cronExpression: string;
  jobType: string;
  payload: P;
  timezone: string;
  allowOverlap: boolean;
  status: CronScheduleStatus;
  maxAttempts: number;
  priority: number;
  timeoutMs: number | null;
  tags: string[];
  retryDelay: number | null;
  retryBackoff: boolean | null;
  retryDelayMax: number | null;
  lastEnqueuedAt: Date | null;
  lastJobId: number | null;
  nextRunAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** State of a waitpoint token. */
export type WaitTokenStatus = 'waiting' | 'completed' | 'timed_out';

/** A waitpoint token (DETAILS "Queue-level token operations"). */
export interface WaitToken {
  /** `wp_<uuid>` */
  id: string;
  /** The job waiting on it, once one does. */
  jobId: number | null;
  status: WaitTokenStatus;
  output: unknown;
  timeoutAt: Date | null;
  createdAt: Date;
  completedAt: Date | null;
  tags: string[];
}

/** What `ctx.waitForToken` resolves to. */
export type TokenWaitResult<T = unknown> = { ok: true; output: T } | { ok: false; error: string };
