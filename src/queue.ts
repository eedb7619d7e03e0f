/**
 * initJobQueue and the JobQueue facade. The facade picks the Backend once, here, and hands each
 * call to the operations layer (src/operations), which validates it, calls the backend and emits
 * the real-time hooks; reads go to the backend directly.
 */
import type { Backend } from './backend.js';
import { createPostgresBackend } from './backends/postgres/index.js';
import { createRedisBackend } from './backends/redis/index.js';
import { systemClock } from './clock.js';
import { searchLimits } from './search-limits.js';
import { resolveConfig } from './config.js';
import { createTelemetry } from './telemetry/config.js';
import type { Telemetry } from './telemetry/telemetry.js';
import { ValidationError } from './errors.js';
import type { QueueEventListener, QueueEventName, QueueEvents } from './events.js';
import type { InputLimits } from './input-limits.js';
import type { Log } from './log.js';
import { JobHooks, QueueOperations } from './operations/index.js';
import { createProcessor, type Processor } from './processor.js';
import type { JobHandlers, ProcessorOptions } from './processor-options.js';
import { QueueLifecycle, type CloseOptions } from './queue-lifecycle.js';
import { fillMinutes, throughputWindow, toJobCounts } from './overview.js';
import { createSupervisor, type Supervisor, type SupervisorOptions } from './supervisor.js';
import {
  normalizeFilter,
  normalizeJobQuery,
  requireInteger,
  requireJobCountsOptions,
  requireJobPageOptions,
  requireJobId,
  requireJobIds,
  requireNonEmptyString,
  requirePage,
  requireStatus,
  requireTagMode,
  requireTags,
  requireThroughputOptions,
} from './validation.js';
import type {
  AddJobOptions,
  Clock,
  CreateTokenOptions,
  CronJobOptions,
  CronScheduleRecord,
  CronScheduleStatus,
  EditCronJobOptions,
  EditJobOptions,
  JobEvent,
  JobCounts,
  JobCountsOptions,
  JobFilter,
  JobHoldReason,
  JobQueryFilter,
  JobPage,
  JobPageOptions,
  JobOptions,
  JobQueueConfig,
  JobRecord,
  JobStatus,
  PayloadMap,
  JsonForm,
  StorablePayloads,
  TagQueryMode,
  ThroughputMinute,
  ThroughputOptions,
  WaitToken,
} from './types.js';
import type { PostgresPool, RedisClient } from './types.js';

/** Rows removed per statement/script by cleanupOldJobs when called directly. */
const CLEANUP_BATCH_SIZE = 1000;

/**
 * The placeholder for the job at `index` of the same `addJobs` call, for `dependsOn.jobIds`.
 * @example queue.addJobs([{ jobType: 'a', payload: {} }, { jobType: 'b', payload: {}, dependsOn: { jobIds: [batchDepRef(0)] } }])
 */
export function batchDepRef(index: number): number {
  requireInteger('index', index, 0, Number.MAX_SAFE_INTEGER);
  return -(index + 1);
}

/**
 * Creates a queue. Create it once per process and share it: each queue owns a connection pool.
 * Throws ConfigError on an invalid configuration. The payload map `P` types `addJob` and the
 * handlers; a payload type holding a function, a symbol or a bigint, which `addJob` would
 * refuse, does not compile (`StorablePayloads`).
 */
export function initJobQueue<P extends PayloadMap & StorablePayloads<P> = PayloadMap>(
  config: JobQueueConfig,
): JobQueue<P> {
  const resolved = resolveConfig(config);
  const clock = config.clock ?? systemClock;
  const backend =
    resolved.backend === 'postgres' ? createPostgresBackend(resolved) : createRedisBackend(resolved, clock);
  const telemetry = createTelemetry(resolved.telemetry, resolved.backend, clock, resolved.log);
  return openQueue<P>(backend, clock, { log: resolved.log, telemetry, limits: resolved.limits });
}

/*
 * The store stays off the public types: the constructor and the `#backend` and `#operations`
 * fields are private, so the published declarations name neither `Backend` nor a way to reach
 * it. The library's own modules (and its tests) reach them through backendOf() and
 * operationsOf(), which src/index.ts does not export. The class's static block hands out these
 * privileged functions.
 */
/** What a queue takes besides its store and clock. */
interface QueueSettings {
  log: Log;
  telemetry: Telemetry;
  limits: InputLimits;
}

let openQueue: <P extends PayloadMap>(backend: Backend, clock: Clock, settings: QueueSettings) => JobQueue<P>;
let readBackend: <P extends PayloadMap>(queue: JobQueue<P>) => Backend;
let readOperations: <P extends PayloadMap>(queue: JobQueue<P>) => QueueOperations;

/** @internal The store behind `queue`, refusing every call once the queue is closed. Not public API. */
export function backendOf<P extends PayloadMap>(queue: JobQueue<P>): Backend {
  return readBackend(queue);
}

/** @internal The operations layer of `queue`: every write, with its hooks. Not public API. */
export function operationsOf<P extends PayloadMap>(queue: JobQueue<P>): QueueOperations {
  return readOperations(queue);
}

/** Calls that stay usable after close() (listeners), or check for themselves. */
const UNGUARDED_CALLS = new Set([
  'constructor',
  'on',
  'once',
  'off',
  'removeAllListeners',
  'createProcessor',
  'createSupervisor',
  'close',
]);
/** Calls that return a value rather than a promise: they throw instead of rejecting. */
const SYNC_CALLS = new Set(['getPool', 'getRedisClient']);

export class JobQueue<P extends PayloadMap = PayloadMap> {
  static {
    openQueue = <Q extends PayloadMap>(backend: Backend, clock: Clock, settings: QueueSettings) =>
      new JobQueue<Q>(backend, clock, settings);
    readBackend = <Q extends PayloadMap>(queue: JobQueue<Q>) => queue.#backend;
    readOperations = <Q extends PayloadMap>(queue: JobQueue<Q>) => queue.#operations;
    guardClosedCalls(JobQueue.prototype as JobQueue, (queue: JobQueue) => queue.lifecycle);
  }

  /** @internal Subscriptions and error reports; job hooks are emitted by the operations. */
  readonly events: QueueEvents;
  /** The store, refusing every call once the queue is closed. */
  readonly #backend: Backend;
  /** Every write, through one layer that emits its hooks. */
  readonly #operations: QueueOperations;
  private readonly lifecycle: QueueLifecycle;
  /** @internal The queue's log (`logger`, `verbose`); processors and supervisors write to it too. */
  readonly log: Log;

  /** Use initJobQueue. */
  private constructor(
    backend: Backend,
    /** @internal */ readonly clock: Clock,
    { log, telemetry, limits }: QueueSettings,
  ) {
    this.log = log;
    this.lifecycle = new QueueLifecycle(backend);
    this.#backend = this.lifecycle.backend;
    const hooks = new JobHooks(log, telemetry);
    this.events = hooks;
    this.#operations = new QueueOperations({ backend: this.#backend, clock, hooks, log, telemetry, limits });
    // To the `error` listeners, or to the log when there is none: at level error for data that
    // may be lost already, at warn for a risk.
    backend.setErrorReporter?.((error, options) =>
      this.events.reportError(error, { level: options?.risk ? 'warn' : 'error' }),
    );
  }

  // §4.1 Adding jobs

  /** Adds one job and returns its id (the existing id when the idempotency key is taken). */
  async addJob<T extends keyof P & string>(options: JobOptions<P, T>, addOptions?: AddJobOptions): Promise<number> {
    return this.#operations.jobs.add(options, addOptions);
  }

  /** Adds many jobs in one round trip; ids come back in input order. */
  async addJobs(list: JobOptions<P>[], addOptions?: AddJobOptions): Promise<number[]> {
    return this.#operations.jobs.addMany(list, addOptions);
  }

  // §4.2 Retrieving jobs

  /** The job, its payload in JSON form as the store holds it (`JsonForm`: a `Date` is a string). */
  async getJob<T extends keyof P & string = keyof P & string>(id: number): Promise<JobRecord<JsonForm<P[T]>> | null> {
    requireJobId('id', id);
    return this.#backend.getJob(id) as Promise<JobRecord<JsonForm<P[T]>> | null>;
  }

  /** Jobs matching `filter`, newest first; all jobs when no filter is given. */
  async getJobs(filter?: JobFilter, limit?: number, offset?: number): Promise<JobRecord[]> {
    return this.#backend.getJobs({ filter: normalizeFilter(filter), ...requirePage(limit, offset) });
  }

  async getJobsByStatus(status: JobStatus, limit?: number, offset?: number): Promise<JobRecord[]> {
    return this.#backend.getJobs({ status: requireStatus('status', status), ...requirePage(limit, offset) });
  }

  /**
   * Jobs matching every member of `filter`, which takes a `status` besides the job filter's
   * members, newest first; all jobs without one.
   * @example await queue.queryJobs({ status: 'failed', jobType: 'email.send' }, 50, 0)
   */
  async queryJobs(filter?: JobQueryFilter, limit?: number, offset?: number): Promise<JobRecord[]> {
    return this.#backend.getJobs({ ...normalizeJobQuery(filter), ...requirePage(limit, offset) });
  }

  /**
   * A page of the jobs matching `filter` (as in queryJobs), newest first, from `after` on: a
   * keyset page, read from that id down an index, so a page deep in a large table costs what
   * the first page costs. `nextAfter` starts the next page; it is null on the last.
   * @example const page = await queue.queryJobsPage({ status: 'failed' }, { limit: 50, after: previous.nextAfter })
   */
  async queryJobsPage(filter?: JobQueryFilter, options?: JobPageOptions): Promise<JobPage> {
    const query = normalizeJobQuery(filter);
    const { limit, after } = requireJobPageOptions(options);
    // One job past the page tells whether another page follows, without a count.
    const rows = await this.#backend.getJobs({ ...query, limit: limit + 1, before: after ?? undefined });
    const jobs = rows.slice(0, limit);
    return { jobs, nextAfter: rows.length > limit ? jobs[jobs.length - 1]!.id : null };
  }

  /**
   * How many jobs match `filter` (which takes a `status` as in queryJobs), counting no further
   * than `limit` when one is given: the work stays bounded like a page of that size.
   * @example const failed = await queue.countJobs({ status: 'failed', jobType: 'email' }, 10_001)
   */
  async countJobs(filter?: JobQueryFilter, limit?: number): Promise<number> {
    const max = limit === undefined ? Number.MAX_SAFE_INTEGER : requireInteger('limit', limit, 0);
    if (max === 0) return 0;
    return this.#backend.countJobs({ ...normalizeJobQuery(filter), limit: max });
  }

  async getAllJobs(limit?: number, offset?: number): Promise<JobRecord[]> {
    return this.#backend.getJobs({ ...requirePage(limit, offset) });
  }

  async getJobsByTags(
    tags: string[],
    mode: TagQueryMode = 'all',
    limit?: number,
    offset?: number,
  ): Promise<JobRecord[]> {
    const filter: JobFilter = { tags: { values: requireTags('tags', tags), mode: requireTagMode('mode', mode) } };
    return this.#backend.getJobs({ filter, ...requirePage(limit, offset) });
  }

  /**
   * Why each job, when pending, is not claimed yet: one entry per id, in the same order, null
   * for a job that is missing or not pending. At most MAX_HOLD_REASON_IDS ids per call.
   * @example const [reason] = await queue.getHoldReasons([id]); // 'scheduled' | 'dependencies' | 'group' | 'due' | null
   */
  async getHoldReasons(jobIds: number[]): Promise<(JobHoldReason | null)[]> {
    return this.#backend.getHoldReasons({ jobIds: requireJobIds('jobIds', jobIds), now: this.clock.now() });
  }

  /**
   * The distinct job types starting with `prefix` (all types without one), sorted, at most
   * 1,000 (`searchLimits.prefixTypes`): for a type picker. One index read per type.
   * @example await queue.getJobTypes('email.') // ['email.bounce', 'email.send']
   */
  async getJobTypes(prefix = ''): Promise<string[]> {
    const checked = prefix === '' ? '' : requireNonEmptyString('prefix', prefix);
    const types = await this.#backend.getJobTypes({ prefix: checked, limit: searchLimits.prefixTypes });
    return types.sort();
  }

  /** The job's event history, oldest first. */
  async getJobEvents(jobId: number): Promise<JobEvent[]> {
    requireJobId('jobId', jobId);
    return this.#backend.getJobEvents(jobId);
  }

  // Overview

  /**
   * Jobs per status, and per job type within each status, for a dashboard's overview. Each status
   * is counted up to `limit` (10,000 by default): a status that reaches it is listed in
   * `atLeast`, and its per-type counts cover its newest `limit` jobs. The work follows `limit`,
   * never the number of jobs stored.
   * @example
   * const { byStatus, atLeast } = await queue.getJobCounts();
   * console.log(`${byStatus.failed}${atLeast.includes('failed') ? '+' : ''} failed`);
   */
  async getJobCounts(options?: JobCountsOptions): Promise<JobCounts> {
    const { limit } = requireJobCountsOptions(options);
    return toJobCounts(await this.#backend.countPerStatus({ limit }), limit);
  }

  /**
   * Completed jobs and failed attempts per minute over the last `minutes` minutes (60 by
   * default, at most 60), the current minute last, one entry per minute (0 when none).
   * @example
   * const perMinute = await queue.getThroughput({ minutes: 15 });
   * const failed = perMinute.reduce((sum, m) => sum + m.failed, 0);
   */
  async getThroughput(options?: ThroughputOptions): Promise<ThroughputMinute[]> {
    const { minutes } = requireThroughputOptions(options);
    const window = throughputWindow(this.clock.now(), minutes);
    return fillMinutes(await this.#backend.getThroughput(window), window);
  }

  // §4.3 Managing jobs

  /** Moves a failed or cancelled job back to pending with a fresh attempt budget. */
  async retryJob(jobId: number): Promise<void> {
    return this.#operations.jobs.retry(jobId);
  }

  /** Cancels a pending or waiting job (and its pending dependents); does nothing otherwise. */
  async cancelJob(jobId: number): Promise<void> {
    return this.#operations.jobs.cancel(jobId);
  }

  /**
   * Retries every failed job matching `filter` (all failed jobs without one), as retryJob does
   * each: back to pending with a fresh attempt budget, a `retried` event and a `job:retried`
   * hook per job. Returns how many were retried.
   * @example const n = await queue.retryAllFailedJobs({ jobType: 'email' })
   */
  async retryAllFailedJobs(filter?: JobFilter): Promise<number> {
    return this.#operations.jobs.retryFailed(filter);
  }

  /** Cancels every pending job matching `filter` (all pending jobs without one). */
  async cancelAllUpcomingJobs(filter?: JobFilter): Promise<number> {
    return this.#operations.jobs.cancelPending(filter);
  }

  /** Edits a pending job; silently does nothing for any other status. */
  async editJob(jobId: number, updates: EditJobOptions<P[keyof P]>): Promise<void> {
    return this.#operations.jobs.edit(jobId, updates);
  }

  /** Edits every pending job matching `filter`; returns how many were edited. */
  async editAllPendingJobs(filter: JobFilter | undefined, updates: EditJobOptions<P[keyof P]>): Promise<number> {
    return this.#operations.jobs.editPending(filter, updates);
  }

  /**
   * Deletes a finished job (completed, cancelled, or failed with no retry left) with its events,
   * as cleanupOldJobs removes old ones. Throws NotFoundError for an unknown id and
   * JobStatusError (naming the status) for a job that has not finished; nothing changes then.
   * @example await queue.deleteJob(42)
   */
  async deleteJob(jobId: number): Promise<void> {
    return this.#operations.jobs.delete(jobId);
  }

  /** Removes finished jobs (and their events) last updated more than `daysToKeep` days ago. */
  async cleanupOldJobs(daysToKeep = 30, batchSize = CLEANUP_BATCH_SIZE): Promise<number> {
    return this.#operations.maintenance.cleanupOldJobs({ daysToKeep, batchSize });
  }

  /** Removes events created more than `daysToKeep` days ago. */
  async cleanupOldJobEvents(daysToKeep = 30, batchSize = CLEANUP_BATCH_SIZE): Promise<number> {
    return this.#operations.maintenance.cleanupOldJobEvents({ daysToKeep, batchSize });
  }

  /**
   * Returns jobs processing for longer than `maxProcessingTimeMinutes` (or their own longer
   * timeoutMs) to pending, or fails them with reason `timeout` when no attempt is left.
   */
  async reclaimStuckJobs(maxProcessingTimeMinutes = 10): Promise<number> {
    return this.#operations.maintenance.reclaimStuckJobs(maxProcessingTimeMinutes);
  }

  // §4.4 Cron schedules

  /** Adds a cron schedule and returns its id. Throws ValidationError on invalid options or a taken name. */
  addCronJob<T extends keyof P & string>(options: CronJobOptions<P, T>): Promise<number> {
    return this.#operations.cron.add(options);
  }

  /** Pauses a schedule: automatic enqueueing skips it. Throws NotFoundError for an unknown id. */
  async pauseCronJob(scheduleId: number): Promise<void> {
    await this.#operations.cron.pause(requireJobId('scheduleId', scheduleId));
  }

  /** Resumes a paused schedule from now on (slots missed while paused are not caught up). */
  async resumeCronJob(scheduleId: number): Promise<void> {
    await this.#operations.cron.resume(requireJobId('scheduleId', scheduleId));
  }

  /**
   * Enqueues one job of the schedule now, atomically as a due slot is (the same job options,
   * recorded as its last job), also when the schedule is paused. The schedule's `nextRunAt` is
   * left alone: regular runs go on as before. With `allowOverlap: false`, nothing is enqueued
   * while its last job is still active, and null is returned. Throws NotFoundError for an
   * unknown id.
   * @example const jobId = await queue.triggerCronJob(scheduleId); // null: last job still running
   */
  async triggerCronJob(scheduleId: number): Promise<number | null> {
    return this.#operations.cron.trigger(requireJobId('scheduleId', scheduleId));
  }

  /** Edits a schedule; `nextRunAt` is recalculated when `cronExpression` or `timezone` changes. */
  async editCronJob(scheduleId: number, updates: EditCronJobOptions<P[keyof P]>): Promise<void> {
    await this.#operations.cron.edit(requireJobId('scheduleId', scheduleId), updates);
  }

  /** Deletes a schedule's definition; jobs it already enqueued stay. */
  async removeCronJob(scheduleId: number): Promise<void> {
    await this.#operations.cron.remove(requireJobId('scheduleId', scheduleId));
  }

  /** Schedules ordered by id, optionally only 'active' or 'paused' ones. */
  async listCronJobs(status?: CronScheduleStatus): Promise<CronScheduleRecord[]> {
    // Checked as a JavaScript caller may give it: any value.
    const given: unknown = status;
    if (given !== undefined && given !== 'active' && given !== 'paused') {
      throw new ValidationError(
        'status',
        `Expected \`status\` to be 'active' or 'paused', got ${JSON.stringify(status)}`,
      );
    }
    return this.#backend.getCronSchedules(status === undefined ? {} : { status });
  }

  async getCronJob(scheduleId: number): Promise<CronScheduleRecord | null> {
    return this.#operations.cron.get(requireJobId('scheduleId', scheduleId));
  }

  async getCronJobByName(scheduleName: string): Promise<CronScheduleRecord | null> {
    return this.#operations.cron.getByName(scheduleName);
  }

  /** Enqueues one job for every active schedule that is due; returns the number enqueued. */
  enqueueDueCronJobs(): Promise<number> {
    return this.#operations.cron.enqueueDue();
  }

  // Waitpoint tokens (DETAILS "Queue-level token operations")

  /** Creates an open token (`wp_<uuid>`) that any job can wait on with `ctx.waitForToken`. */
  createToken(options?: CreateTokenOptions): Promise<{ id: string }> {
    return this.#operations.tokens.create(options, null);
  }

  /** Completes an open token with `output`; the job waiting on it resumes. No-op for a settled token. */
  completeToken(tokenId: string, output?: unknown): Promise<void> {
    return this.#operations.tokens.complete(tokenId, output);
  }

  async getToken(tokenId: string): Promise<WaitToken | null> {
    return this.#operations.tokens.get(tokenId);
  }

  /** Times out open tokens past their timeout; their jobs resume with `{ ok: false }`. Returns the count. */
  expireTimedOutTokens(): Promise<number> {
    return this.#operations.tokens.expireTimedOut();
  }

  // §4.6 Processing, §4.9 Supervisor

  /**
   * Creates a processor running `handlers` (one per job type). Before claiming, it enqueues due
   * cron schedules (SPEC §4.4 rule 1). `close()` stops it. Throws ConfigError on invalid
   * options, QueueClosedError once the queue is closing.
   */
  createProcessor(handlers: JobHandlers<P>, options?: ProcessorOptions): Processor {
    const [backend, operations, events] = [this.#backend, this.#operations, this.events];
    const host = {
      backend,
      operations,
      events,
      log: this.log,
      enqueueDueCronJobs: () => operations.cron.enqueueDue(),
    };
    return this.lifecycle.adopt(() => createProcessor(host, handlers, options), 'queue.createProcessor');
  }

  /**
   * Creates a maintenance supervisor; `close()` stops it. Throws ConfigError on invalid options,
   * QueueClosedError once the queue is closing.
   */
  createSupervisor(options?: SupervisorOptions): Supervisor {
    const host = { operations: this.#operations, events: this.events, log: this.log };
    return this.lifecycle.adopt(() => createSupervisor(host, options), 'queue.createSupervisor');
  }

  // §4.10 Hooks

  on<E extends QueueEventName>(event: E, listener: QueueEventListener<E>): void {
    this.events.on(event, listener);
  }
  once<E extends QueueEventName>(event: E, listener: QueueEventListener<E>): void {
    this.events.once(event, listener);
  }
  off<E extends QueueEventName>(event: E, listener: QueueEventListener<E>): void {
    this.events.off(event, listener);
  }
  removeAllListeners(event?: QueueEventName): void {
    this.events.removeAllListeners(event);
  }

  // Drivers and lifecycle

  /** The pg.Pool (PostgreSQL backend only; throws UnsupportedOnBackendError on Redis). */
  getPool(): PostgresPool {
    return this.#backend.getPool();
  }

  /** The ioredis client (Redis backend only; throws UnsupportedOnBackendError on PostgreSQL). */
  getRedisClient(): RedisClient {
    return this.#backend.getRedisClient();
  }

  /**
   * Shuts the queue down: stops every processor and supervisor created from it, waits up to
   * `timeoutMs` for running handlers to end and be recorded, then closes the pool or client the
   * library created (a caller-owned one is left open). Afterwards every operation rejects with
   * a QueueClosedError. Calling it again returns the same promise.
   */
  close(options?: CloseOptions): Promise<void> {
    return this.lifecycle.close(options);
  }
}

/**
 * Once the queue is closed, each of its methods fails with a QueueClosedError naming the call
 * made (`queue.addJob()`), not the store call it would have led to (`addJobs`). One wrapper per
 * method, installed once on the prototype, so no method needs a check of its own.
 */
function guardClosedCalls(prototype: JobQueue, lifecycleOf: (queue: JobQueue) => QueueLifecycle): void {
  const methods = prototype as unknown as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(prototype)) {
    const method = methods[name];
    if (UNGUARDED_CALLS.has(name) || typeof method !== 'function') continue;
    const call = method as (...args: unknown[]) => unknown;
    methods[name] = {
      [name](this: JobQueue, ...args: unknown[]): unknown {
        const lifecycle = lifecycleOf(this);
        if (!lifecycle.closed) return call.apply(this, args);
        const error = lifecycle.closedError(`queue.${name}`);
        if (SYNC_CALLS.has(name)) throw error;
        return Promise.reject(error);
      },
    }[name];
  }
}
