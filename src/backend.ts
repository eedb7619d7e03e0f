/**
 * The Backend interface: queue operations at the level of the spec's semantics, implemented
 * once per store (src/backends/postgres, src/backends/redis).
 *
 * Division of work:
 * - The operations layer (src/operations, called by the queue facade, processors, the
 *   supervisor and cron) validates input, applies defaults, reads the clock and emits real-time
 *   hooks. Backends receive normalized, already-valid input and never read time themselves:
 *   every time they write comes from a `now` argument.
 * - Backends make each operation atomic (one SQL statement or transaction; one Lua script),
 *   write the matching event-history rows in the same statement/transaction/script, and
 *   return what the operations need to emit hooks (cascaded cancellations included).
 */
import type {
  CronScheduleRecord,
  CronScheduleStatus,
  FailureReason,
  JobEvent,
  JobFilter,
  JobHoldReason,
  JobRecord,
  JobStatus,
  Queryable,
  WaitToken,
} from './types.js';
import type { PostgresPool, RedisClient } from './types.js';
import type { JobCountFacts, ThroughputFacts } from './overview.js';

/** A job ready to insert: validated, defaults applied (see validation.ts `normalizeJob`). */
export interface NewJob {
  jobType: string;
  /** JSON-safe value (validated). */
  payload: unknown;
  maxAttempts: number;
  priority: number;
  /** Resolved run time (`now` when the caller gave none). */
  runAt: Date;
  timeoutMs: number | null;
  forceKillOnTimeout: boolean;
  /** Deduplicated, in the caller's order; empty when none. */
  tags: string[];
  idempotencyKey: string | null;
  retryDelay: number | null;
  retryBackoff: boolean | null;
  retryDelayMax: number | null;
  deadLetterJobType: string | null;
  group: { id: string; tier: string | null } | null;
  /**
   * Positive ids of existing jobs, or (in `addJobs` only) negative placeholders
   * `-(index + 1)` naming another job of the same batch. Placeholder range, self-reference
   * and cycles are already checked; the backend checks that positive ids exist.
   */
  dependsOnJobIds: number[] | null;
  dependsOnTags: string[] | null;
  /**
   * The producer's trace context to store with the job (telemetry/trace-context.ts: W3C
   * `traceparent`, then a space and `tracestate` when there is one); null when none was recorded.
   */
  traceContext: string | null;
}

/**
 * What a claim returns of each job: what the run reads (the handler's payload and steps, the
 * limits and retry settings of the run, the times its telemetry reports), what the claim did
 * (status, lock) and what orders a claim's jobs (priority, creation time), plus the trace
 * context stored with the job when it was added (NewJob.traceContext), which only claims read.
 * Not the whole record: a claim leaves out the rest (its error history, output, tags, ...),
 * which a run never reads, so a store need not send or the driver decode it for every claimed job.
 */
export type ClaimedJob = Pick<
  JobRecord,
  | 'id'
  | 'jobType'
  | 'payload'
  | 'status'
  | 'attempts'
  | 'maxAttempts'
  | 'priority'
  | 'runAt'
  | 'createdAt'
  | 'timeoutMs'
  | 'forceKillOnTimeout'
  | 'retryDelay'
  | 'retryBackoff'
  | 'retryDelayMax'
  | 'group'
  | 'stepData'
  | 'lockedAt'
  | 'lockedBy'
  | 'startedAt'
> & { traceContext?: string };

export interface AddJobsInput {
  jobs: NewJob[];
  now: Date;
  /** Caller's client (PostgreSQL only; other backends throw UnsupportedOnBackendError). */
  db?: Queryable;
}

export interface AddJobsResult {
  /** Job ids in input order; a duplicate idempotency key resolves to the existing id. */
  ids: number[];
  /** Ids of the jobs this call really inserted (for `job:added` hooks), in input order. */
  insertedIds: number[];
}

/** Which jobs a list operation reads. Results are newest first (id descending). */
export interface JobQuery {
  status?: JobStatus;
  filter?: JobFilter;
  /**
   * Only jobs whose payload JSON text contains this (ASCII letters in any case), among the
   * newest `searchLimits.payloadScan` jobs matching the rest of the query (search-limits.ts).
   */
  payloadContains?: string;
  /** Omitted: all matching jobs. */
  limit?: number;
  offset?: number;
  /**
   * Only jobs with a smaller id (listed after this one): a keyset page, read from this id on
   * down an index like a first page. With a payload search, the search still looks at the
   * newest jobs matching the rest of the query, and keeps those below this id.
   */
  before?: number;
}

/**
 * Which jobs an operation touches: one job, or every job matching a filter in the status the
 * operation starts from (pending for a cancel or an edit, failed for a retry).
 */
export type JobSelector = { jobId: number } | { filter?: JobFilter };

/** A count of the jobs a list query matches, counting no further than `limit`. */
export interface CountQuery {
  status?: JobStatus;
  filter?: JobFilter;
  limit: number;
}

/**
 * What deleteJob found. `status` is the job's status as found (null: no such job); the job was
 * deleted exactly when it was finished (completed, cancelled, failed with no retry left).
 */
export interface DeleteJobResult {
  deleted: boolean;
  status: JobStatus | null;
  /** A failed job with an automatic retry still due (not finished, so not deleted). */
  retryDue: boolean;
}

/**
 * Validated edit of a pending job. Only present keys change. `runAt: null` has already been
 * resolved to `now`. Retry fields may be null (back to the legacy delay rule);
 * `deadLetterJobType: null` clears routing.
 */
export interface JobEdit {
  payload?: unknown;
  maxAttempts?: number;
  priority?: number;
  runAt?: Date;
  timeoutMs?: number;
  tags?: string[];
  retryDelay?: number | null;
  retryBackoff?: boolean | null;
  retryDelayMax?: number | null;
  deadLetterJobType?: string | null;
}

export interface CancelResult {
  /** Jobs cancelled by the request itself. */
  cancelledIds: number[];
  /** Pending dependents cancelled transitively, with the prerequisite each was cancelled for. */
  cascaded: { jobId: number; cascadeFrom: number }[];
}

export interface ClaimInput {
  workerId: string;
  batchSize: number;
  /** Only these types; omitted or empty: any type. */
  jobTypes?: string[];
  /** Global cap of processing jobs per `group.id`; omitted: unlimited. */
  groupConcurrency?: number;
  now: Date;
  /**
   * The job a wake-up announced (see subscribeJobAvailable). A backend may claim it alone, by id,
   * when it is the job the ordered claim would take first; otherwise (or when the backend does
   * not use hints) the claim runs as without it.
   */
  jobId?: number;
}

export interface CompleteInput {
  jobId: number;
  workerId: string;
  /** Present: store as `output`. Absent: keep what `setOutput` stored. */
  output?: unknown;
}

export interface FailInput {
  jobId: number;
  workerId: string;
  /** Already storable and bounded: see failureMessage in failure.ts. */
  message: string;
  /** Stored with the error history entry when present; already bounded (failureStack in failure.ts). */
  stack?: string;
  reason: FailureReason;
  /** When the automatic retry runs; null when no retry follows (the job ends failed). */
  retryAt: Date | null;
}

export interface FailResult {
  /** Dead-letter job created for an exhausted job, else null. */
  deadLetterJobId: number | null;
  cascaded: { jobId: number; cascadeFrom: number }[];
}

export interface ReclaimInput {
  /** Jobs locked before `now - maxProcessingMs` (or their own longer timeoutMs) are stuck. */
  maxProcessingMs: number;
  now: Date;
}

export interface ReclaimResult {
  /** Returned to pending (attempts left). */
  requeuedIds: number[];
  /** Out of attempts: now failed with reason `timeout`. */
  failedIds: number[];
  deadLetterJobIds: number[];
  cascaded: { jobId: number; cascadeFrom: number }[];
}

export interface CleanupInput {
  /** Remove what was last updated (jobs) or created (events) before this time. */
  olderThan: Date;
  /** Remove at most this many per statement/script, looping until done. */
  batchSize: number;
}

export interface Backend extends CronStore, WaitStore {
  // §4.1
  addJobs(input: AddJobsInput): Promise<AddJobsResult>;

  // §4.2
  getJob(id: number): Promise<JobRecord | null>;
  getJobs(query: JobQuery): Promise<JobRecord[]>;
  /** How many jobs match, up to `limit`; the work is bounded like a listing's. */
  countJobs(query: CountQuery): Promise<number>;
  getJobEvents(jobId: number): Promise<JobEvent[]>;
  /**
   * Why each job, when pending, is not claimed yet at `now`: one entry per id, in order; null
   * for a missing or not pending job. One statement or one script for the whole list.
   */
  getHoldReasons(input: { jobIds: number[]; now: Date }): Promise<(JobHoldReason | null)[]>;
  /**
   * Distinct job types starting with `prefix` ('' for all), at most `limit`, from the job type
   * index (one index read per type); in the store's order, which the queue sorts.
   */
  getJobTypes(input: { prefix: string; limit: number }): Promise<string[]>;

  // §4.3
  /**
   * failed or cancelled (one job), or failed (by filter) → pending, attempts reset, a `retried`
   * event each; each job changes atomically, a filter's set in bounded slices or batches.
   * Returns the ids retried.
   */
  retryJobs(selector: JobSelector, now: Date): Promise<number[]>;
  /** Cancels pending (or waiting) jobs and, transitively, their pending dependents. */
  cancelJobs(selector: JobSelector, now: Date): Promise<CancelResult>;
  /** Edits pending jobs; returns the ids edited (an `edited` event is written for each). */
  editJobs(selector: JobSelector, edit: JobEdit, now: Date): Promise<number[]>;
  cleanupOldJobs(input: CleanupInput): Promise<number>;
  /** Removes one finished job as cleanupOldJobs removes one; any other status is left as it is. */
  deleteJob(jobId: number): Promise<DeleteJobResult>;
  cleanupOldJobEvents(input: CleanupInput): Promise<number>;
  reclaimStuckJobs(input: ReclaimInput): Promise<ReclaimResult>;

  // §4.6 processing
  /**
   * Claims up to `batchSize` eligible jobs: pending → processing, attempts + 1. Each job is
   * claimed atomically; a batch in one statement (PostgreSQL) or in script calls of a bounded
   * number of jobs each (Redis).
   */
  claimJobs(input: ClaimInput): Promise<ClaimedJob[]>;
  /**
   * Records completions, fenced: only jobs still processing and locked by `workerId`. Returns the
   * ids recorded. Throws StoreRejectedError when the store refuses the values written (nothing
   * of the call is recorded); other errors mean the store could not be reached.
   */
  completeJobs(completions: CompleteInput[], now: Date): Promise<number[]>;
  /**
   * Most completions one completeJobs call should take, where a larger call would hold the
   * store from other clients for long (Redis runs one script at a time); the completion buffer
   * writes more in several calls. Absent: the buffer's own bound.
   */
  readonly maxCompletionsPerCall?: number;
  /**
   * Records failures at `now`, fenced as completions are: one result per input, in order; null
   * for a job no longer processing and locked by its `workerId`. Failures that end a job (no
   * retry) and the cascade to their dependents are one transaction (PostgreSQL) or one script
   * call (Redis). Throws StoreRejectedError when the store refuses the values written (nothing
   * of the call is recorded); other errors mean the store could not be reached.
   */
  failJobs(failures: FailInput[], now: Date): Promise<(FailResult | null)[]>;
  /** As maxCompletionsPerCall, for failJobs. */
  readonly maxFailuresPerCall?: number;
  /**
   * Moves the deadline: refreshes `locked_at`, writes a `prolonged` event with metadata
   * `{ timeoutMs }`. Fenced. `timeoutMs` is the new deadline counted from `now`; null when the
   * job has no deadline (`ctx.prolong()` on a job without timeoutMs: a heartbeat only).
   */
  prolongJob(input: { jobId: number; workerId: string; timeoutMs: number | null; now: Date }): Promise<boolean>;
  /** Stores progress (0..100 integer). Fenced. */
  setProgress(input: { jobId: number; workerId: string; progress: number; now: Date }): Promise<boolean>;
  /** Stores output (JSON). Fenced. */
  setOutput(input: { jobId: number; workerId: string; output: unknown; now: Date }): Promise<boolean>;
  /**
   * Of `jobIds`, the ones still processing and locked by `workerId`, in one statement or script:
   * the processor's periodic check that the jobs its handlers run are still its own. Read-only.
   */
  heldJobIds(input: { workerId: string; jobIds: number[] }): Promise<number[]>;
  /**
   * Renews the leases of jobs claimed ahead that have not started (the processor's claim-ahead
   * buffer): of `jobIds`, the ones still processing and locked by `workerId` get `locked_at` =
   * `now`, so the reclaim counts from `now`. No event. One statement or script. Returns the ids
   * renewed; a job missing from the answer is no longer this worker's.
   */
  renewLeases(input: { workerId: string; jobIds: number[]; now: Date }): Promise<number[]>;
  /**
   * Hands back jobs claimed ahead that never started: of `jobIds`, the ones still processing and
   * locked by `workerId` go back to pending with `pendingReason` 'released', their lock cleared
   * and a `released` event each; `attempts` stays as the claim left it and their next claim
   * counts none, so the hand-back uses no attempt. Any other job (reclaimed meanwhile, perhaps
   * claimed by another worker) is left as it is. Signals the wake-up when any went back. One
   * statement or script. Returns the ids handed back.
   */
  releaseJobs(input: { workerId: string; jobIds: number[]; now: Date }): Promise<number[]>;

  // Overview (src/overview.ts). completeJobs, failJobs and reclaimStuckJobs also add what they
  // record to the throughput counter of the minute of their `now`, in the same write.
  /**
   * Jobs per status, each counted up to `limit`, and the job types of the newest `limit` jobs of
   * each status: work bounded by `limit`, never by the number of jobs stored. Read-only.
   */
  countPerStatus(input: { limit: number }): Promise<JobCountFacts>;
  /** The throughput counters of the minutes from `from` to `to` (minute starts, both included). */
  getThroughput(input: { from: Date; to: Date }): Promise<ThroughputFacts>;
  /** Removes the throughput counters of minutes before `olderThan`; returns how many went. */
  trimThroughput(input: { olderThan: Date }): Promise<number>;

  /**
   * Calls `listener` soon after a job may have become available (an add, a retry), from any
   * process. Best effort: polling stays correct without it. Returns an unsubscribe function.
   * `jobId`, when given, is the one job a single add made available (a claim hint, ClaimInput.jobId).
   * What is announced before the subscription is in place, or while it reconnects, is not heard:
   * so the listener is also called, without `jobId`, once its subscription is in place and after
   * each reconnection.
   */
  subscribeJobAvailable(listener: (jobId?: number) => void): Promise<() => Promise<void>>;

  // Driver access (each backend refuses the other's with UnsupportedOnBackendError)
  getPool(): PostgresPool;
  getRedisClient(): RedisClient;

  /**
   * Where the backend reports a problem no single call owns, such as a Redis store found wiped
   * (StoreResetError); the queue sends it to its `error` listeners, or to its log when there is
   * none, at level warn with `risk` (a risk, like an evicting Redis, rather than a loss that
   * happened), else at level error.
   */
  setErrorReporter?(report: (error: Error, options?: { risk?: boolean }) => void): void;

  /** Closes connections the library created; never closes a caller-owned pool or client. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Cron schedules (SPEC §2.9, §4.4) and durable waits (DETAILS "Handler context", tokens).
// Kept as their own interfaces; Backend extends both.

/** A validated schedule ready to insert (defaults applied, nextRunAt computed by src/cron.ts). */
export type NewCronSchedule = Omit<
  CronScheduleRecord,
  'id' | 'status' | 'lastEnqueuedAt' | 'lastJobId' | 'createdAt' | 'updatedAt'
>;

/** Validated changes of a schedule; only present keys change (nextRunAt already recomputed). */
export type CronScheduleEdit = Partial<Omit<NewCronSchedule, 'scheduleName'>>;

/**
 * One slot of a schedule to enqueue: a due slot, as read by getDueCronSchedules, or a run
 * triggered by hand (triggerCronJob), whose two times are null.
 */
export interface CronSlot {
  scheduleId: number;
  /**
   * The schedule's nextRunAt as read: the compare-and-set guard, which also requires the
   * schedule to be active. Null for a triggered run: no guard, whatever the status.
   */
  expectedNextRunAt: Date | null;
  /**
   * The first slot after `now` (missed slots collapse into one enqueue). Null for a triggered
   * run: nextRunAt stays as it is.
   */
  nextRunAt: Date | null;
  /** The job to enqueue for this slot (built from the schedule by shared code). */
  job: NewJob;
}

export interface CronStore {
  /** Inserts a schedule; a taken name throws the `schedule-name-taken` fact (rendered as a ValidationError on `scheduleName`). */
  addCronSchedule(schedule: NewCronSchedule, now: Date): Promise<number>;
  /** Schedules by id, by name, or all (optionally by status), ordered by id. */
  getCronSchedules(query: { id?: number; name?: string; status?: CronScheduleStatus }): Promise<CronScheduleRecord[]>;
  /** Applies an edit; false when the schedule does not exist. The name and job type cannot be edited. */
  editCronSchedule(id: number, edit: CronScheduleEdit & { status?: CronScheduleStatus }, now: Date): Promise<boolean>;
  /** Deletes the definition only; jobs it enqueued stay. False when it did not exist. */
  removeCronSchedule(id: number): Promise<boolean>;
  /** Active schedules whose nextRunAt <= now, oldest due first, at most `limit`. */
  getDueCronSchedules(now: Date, limit: number): Promise<CronScheduleRecord[]>;
  /**
   * For each slot, atomically (one statement/transaction or script for the whole list):
   * compare-and-set the schedule's nextRunAt from `expectedNextRunAt` to `nextRunAt` (only while
   * it is active); only the winner of the CAS enqueues `job`, and only when the schedule allows
   * overlap or its last enqueued job (lastJobId) is not pending, processing, waiting, or failed
   * with a retry due. The winner sets lastJobId/lastEnqueuedAt when it enqueues. The job's
   * `added` event and wake-up are written as in addJobs. Returns one entry per slot: the new job
   * id, or null when the slot was lost to another processor or skipped for overlap. A
   * triggered slot (null times) skips the compare-and-set and the status check, keeps
   * nextRunAt, and is refused for overlap under the same rule, checked under the schedule's
   * lock so two concurrent triggers never both enqueue; null also when the schedule is gone.
   */
  enqueueCronSlots(slots: CronSlot[], now: Date): Promise<{ scheduleId: number; jobId: number | null }[]>;
}

export interface EnterWaitInput {
  jobId: number;
  workerId: string;
  /** A timed wait: when the job resumes. */
  waitUntil: Date | null;
  /** A token wait: the token the job waits on. */
  tokenId: string | null;
  /** A step stored in the same write (e.g. the wait's own marker). */
  step?: { name: string; value: unknown };
  now: Date;
}

export type EnterWaitResult =
  /** The job is now `waiting` (locks released, `waiting` event written). */
  | { status: 'waiting' }
  /** The token settled before the job could wait on it: the job keeps running. */
  | { status: 'token_settled'; token: WaitToken }
  /** The job is no longer processing and locked by this worker (fencing). */
  | { status: 'lost' };

export interface WaitStore {
  /** Stores `value` as step `stepName` in the job's step data (merge). Fenced. */
  saveStep(input: { jobId: number; workerId: string; stepName: string; value: unknown; now: Date }): Promise<boolean>;
  /**
   * processing → waiting, fenced, in one statement/transaction or script: sets wait_until (a
   * timed wait) or wait_token_id (a token wait), stores `step` when given (e.g. the wait's own
   * marker) in the same write, clears the lock, writes event `waiting` `{ waitUntil, tokenId }`.
   * `attempts` is unchanged: the resume claim does not add one. For a token wait the token is
   * checked atomically: when it is no longer `waiting`, nothing changes and `token_settled`
   * comes back (no lost wake-up); else the token's jobId is set to this job.
   */
  enterWait(input: EnterWaitInput): Promise<EnterWaitResult>;
  /** Inserts an open token. */
  createToken(input: {
    id: string;
    jobId: number | null;
    timeoutAt: Date | null;
    tags: string[];
    now: Date;
  }): Promise<void>;
  /**
   * waiting token → completed with `output`; when a job waits on it (status waiting,
   * wait_token_id = token), that job moves to pending with pendingReason 'resumed' (the claim
   * does not add an attempt for it) and a wake-up is sent. False when the token was not open.
   */
  completeToken(input: { tokenId: string; output: unknown; now: Date }): Promise<boolean>;
  getToken(tokenId: string): Promise<WaitToken | null>;
  /** Open tokens with timeoutAt <= now → timed_out; their waiting jobs resume as above. Returns the count. */
  expireTimedOutTokens(now: Date): Promise<number>;
}
