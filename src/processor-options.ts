/**
 * Processor options (SPEC §2.10) and handler types, validated once when the processor is
 * created so a bad option fails at `createProcessor`, not in the middle of a run.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import {
  checkBoolean,
  checkFunction,
  checkInteger,
  checkKnownKeys,
  checkObject,
  checkString,
  ensure,
  fail,
} from './checks.js';
import { ConfigError } from './errors.js';
import { MAX_TIMER_MS } from './storable.js';
import type { JobContext } from './handler-context.js';
import type { HandlerPayload, PayloadMap } from './types.js';

/**
 * Runs one job. It receives the JSON form of the payload type (`JsonForm`: a `Date` is a
 * string), as the payload is stored as JSON. The returned value (or the value of the returned
 * promise) is stored as the job's `output` unless `ctx.setOutput` was used.
 */
export type JobHandler<P extends PayloadMap = PayloadMap, T extends keyof P = keyof P> = (
  payload: HandlerPayload<P[T]>,
  signal: AbortSignal,
  ctx: JobContext,
) => unknown;

/** One handler per job type. A claimed job whose type has none fails with reason `no_handler`. */
export type JobHandlers<P extends PayloadMap = PayloadMap> = { [K in keyof P & string]?: JobHandler<P, K> | undefined };

export interface ProcessorOptions {
  /**
   * Name written to `locked_by` of the jobs this processor claims.
   * @default `${hostname}-${pid}-${random}`
   * @example { workerId: 'billing-worker-1' }
   */
  workerId?: string | undefined;
  /**
   * Most jobs claimed in one round trip.
   * @default 10
   * @example { batchSize: 50 }
   */
  batchSize?: number | undefined;
  /**
   * Most handlers running at once in this processor.
   * @default 10
   * @example { concurrency: 2 }
   */
  concurrency?: number | undefined;
  /**
   * Jobs to keep claimed ahead of free slots, in a local buffer, so a slot that frees starts the
   * next job at once instead of after a claim round trip. The buffer is refilled (up to
   * `batchSize` per claim) when it is half empty. Claimed-ahead jobs are `processing` in the
   * store, locked to this worker: they count towards group limits and a crash leaves them to
   * reclaim. While they wait their locks are renewed every `leaseCheckInterval` (at most 1 s), so
   * the reclaim passes over them; `stop()`, `stopAndDrain()` and `queue.close()` hand them back
   * to pending without using an attempt. A buffered job may run before a higher-priority job
   * added after it was claimed. See docs/processing.md.
   * @default 0 (claim only for free slots)
   * @example { batchSize: 500, claimAhead: 500 }
   */
  claimAhead?: number | undefined;
  /**
   * Most jobs of one `group.id` processing at once, across all processors and processes.
   * Jobs without a group are not limited.
   * @default unlimited
   * @example { groupConcurrency: 1 }
   */
  groupConcurrency?: number | undefined;
  /**
   * Milliseconds between polls when no work is found (a new job wakes the processor sooner).
   * @default 5000
   * @example { pollInterval: 1000 }
   */
  pollInterval?: number | undefined;
  /**
   * Milliseconds between checks that the jobs this processor runs are still its own. A job
   * reclaimed by the supervisor (its handler hung, or took longer than `stuckJobsTimeoutMinutes`)
   * is given up: the handler's abort signal fires with a JobLostError, its concurrency slot is
   * freed, whatever it returns later is ignored, and the loss is reported once through `onError`
   * and the `error` event. Only runs held longer than this are checked, with one store call for
   * all of them.
   * @default pollInterval, within 1000 to 60000
   * @example { leaseCheckInterval: 10_000 }
   */
  leaseCheckInterval?: number | undefined;
  /**
   * Called with every internal error (store errors, listener errors, jobs lost to reclaim). The
   * queue's `error` event fires as well. A failure of the background loop that repeats every
   * interval (the store is down) is reported once, and again when it changes or after recovery.
   * With neither `onError` nor an `error` listener, errors are written to the queue's `logger`
   * (the console by default), once per cause.
   * @default none
   * @example { onError: (error) => logger.error(error) }
   */
  onError?: ((error: Error) => void) | undefined;
  /**
   * Write processing activity (claims, completions, failures, wake-ups) as debug lines to the
   * queue's `logger`, or to the console without one.
   * @default false
   * @example { verbose: true }
   */
  verbose?: boolean | undefined;
  /**
   * Only claim jobs of this type or these types. Processors that run different job types on one
   * store name theirs here; otherwise each claims the others' jobs and fails them with reason
   * `no_handler`.
   * @default every type
   * @example { jobType: ['email', 'sms'] }
   */
  jobType?: string | string[] | undefined;
}

/** @internal */
export interface ResolvedProcessorOptions {
  workerId: string;
  batchSize: number;
  concurrency: number;
  claimAhead: number;
  groupConcurrency: number | undefined;
  pollInterval: number;
  leaseCheckInterval: number;
  onError: ((error: Error) => void) | undefined;
  verbose: boolean;
  jobTypes: string[] | undefined;
}

const KNOWN = [
  'workerId',
  'batchSize',
  'concurrency',
  'claimAhead',
  'groupConcurrency',
  'pollInterval',
  'leaseCheckInterval',
  'onError',
  'verbose',
  'jobType',
];
/** Bounds of the default lease check interval: not a query per fast poll, not minutes of a dead slot. */
const LEASE_CHECK_MIN_MS = 1000;
const LEASE_CHECK_MAX_MS = 60_000;
/** Claiming more than this in one round trip holds locks on jobs nobody runs yet. */
const MAX_BATCH_SIZE = 10_000;

/** Processor options are refused at createProcessor with a ConfigError. */
const E = ConfigError;

function positiveInteger(field: string, value: unknown): number {
  return checkInteger(E, field, value, 1, undefined, 'a positive integer');
}

/** A worker id or job type: written to and compared in the store, so held to its string rule. */
function nonEmptyString(field: string, value: unknown): string {
  return checkString(E, field, value);
}

export function defaultWorkerId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** Validates processor options and applies defaults; throws ConfigError naming the field. */
export function resolveProcessorOptions(options: unknown): ResolvedProcessorOptions {
  const o = checkObject(E, 'options', options === undefined ? {} : options, 'an object of processor options');
  checkKnownKeys(E, '', o, KNOWN, 'processor options');
  if (o.onError !== undefined) checkFunction(E, 'onError', o.onError);
  if (o.verbose !== undefined) checkBoolean(E, 'verbose', o.verbose);
  if (o.pollInterval !== undefined) {
    const p = o.pollInterval;
    ensure(
      E,
      typeof p === 'number' && p > 0 && p <= MAX_TIMER_MS,
      'pollInterval',
      `a number of milliseconds > 0 and at most ${MAX_TIMER_MS}`,
      p,
    );
  }
  if (o.leaseCheckInterval !== undefined) {
    const l = o.leaseCheckInterval;
    ensure(
      E,
      typeof l === 'number' && Number.isFinite(l) && l > 0,
      'leaseCheckInterval',
      'a finite number of milliseconds > 0',
      l,
    );
  }
  let jobTypes: string[] | undefined;
  if (o.jobType !== undefined) {
    if (Array.isArray(o.jobType)) {
      if (o.jobType.length === 0) fail(E, 'jobType', 'a job type or a non-empty array of job types', o.jobType);
      jobTypes = [...new Set(o.jobType.map((t, i) => nonEmptyString(`jobType[${i}]`, t)))];
    } else {
      jobTypes = [nonEmptyString('jobType', o.jobType)];
    }
  }
  const pollInterval = (o.pollInterval as number | undefined) ?? 5000;
  return {
    workerId: o.workerId === undefined ? defaultWorkerId() : nonEmptyString('workerId', o.workerId),
    batchSize: o.batchSize === undefined ? 10 : checkInteger(E, 'batchSize', o.batchSize, 1, MAX_BATCH_SIZE),
    concurrency: o.concurrency === undefined ? 10 : positiveInteger('concurrency', o.concurrency),
    claimAhead: o.claimAhead === undefined ? 0 : checkInteger(E, 'claimAhead', o.claimAhead, 0, MAX_BATCH_SIZE),
    groupConcurrency:
      o.groupConcurrency === undefined ? undefined : positiveInteger('groupConcurrency', o.groupConcurrency),
    pollInterval,
    leaseCheckInterval:
      (o.leaseCheckInterval as number | undefined) ??
      Math.min(Math.max(pollInterval, LEASE_CHECK_MIN_MS), LEASE_CHECK_MAX_MS),
    onError: o.onError as ResolvedProcessorOptions['onError'],
    verbose: (o.verbose as boolean | undefined) ?? false,
    jobTypes,
  };
}

/** Checks that `handlers` maps job types to functions. */
export function requireHandlers(handlers: unknown): Record<string, JobHandler> {
  const checked = checkObject(E, 'handlers', handlers, 'an object mapping job types to handler functions');
  for (const [jobType, handler] of Object.entries(checked)) {
    if (handler !== undefined) checkFunction(E, `handlers.${jobType}`, handler);
  }
  return checked as Record<string, JobHandler>;
}
