/**
 * The third handler argument (SPEC §2.10, §4.6; DETAILS "Handler context"). Every write is
 * fenced by the backend: once the job is no longer this worker's, writes do nothing.
 */
import type { EnterWaitResult } from './backend.js';
import { durationToMs, timeAfter, type WaitDuration } from './duration.js';
import { PROGRESS_RULE, checkFunction, checkNumber, ensure } from './checks.js';
import { JobLostError, NotFoundError, ValidationError, WaitSignal } from './errors.js';
import { requireTokenId } from './tokens.js';
import { toError } from './events.js';
import type { JobDeadline, TimeoutCallback } from './job-deadline.js';
import type { JobRunOperations } from './operations/index.js';
import type { ClaimedJob } from './backend.js';
import type { CreateTokenOptions, TokenWaitResult, WaitToken } from './types.js';
import { unstorableStringReason } from './storable.js';
import { requireDate, requireJson } from './validation.js';

export type { TimeoutCallback } from './job-deadline.js';

export interface JobContext {
  /**
   * Sets the deadline to `ms` from now; without an argument, back to the job's own
   * `timeoutMs`. Records a `prolonged` event and refreshes the job's lock (a heartbeat for
   * reclaim). Does nothing for `forceKillOnTimeout` jobs.
   */
  prolong(ms?: number): void;
  /**
   * Registers a callback that runs when the timeout fires, before the abort. Returning a
   * number extends the deadline by that many milliseconds; it may run several times.
   * Does nothing for `forceKillOnTimeout` jobs.
   */
  onTimeout(callback: TimeoutCallback): void;
  /**
   * Stores progress, a finite number from 0 to 100 rounded to an integer (33.7 is stored as 34),
   * and emits `job:progress` with the stored value. Throws RangeError for any other value. Store
   * errors are reported, never thrown.
   */
  setProgress(percent: number): Promise<void>;
  /**
   * Stores a JSON value as the job's `output` (last call wins) and emits `job:output`. When
   * used, the handler's return value is not stored. Throws ValidationError for a value that
   * is not JSON-storable. Store errors are reported, never thrown.
   */
  setOutput(value: unknown): Promise<void>;
  /**
   * A durable step: runs `fn` once and stores its JSON result under `stepName`; when the handler
   * runs again (after a wait or a retry) it returns the stored result without calling `fn`.
   * `undefined` is stored as null. Throws ValidationError for a result or a step name that is
   * not storable (nothing is stored).
   * @example const user = await ctx.run('load-user', () => db.users.find(payload.userId));
   */
  run<T>(stepName: string, fn: () => T | Promise<T>): Promise<T>;
  /**
   * Pauses the job for a duration (parts are added up; months are 30 days, years 365). The job
   * becomes `waiting` and this run of the handler ends; once the time has passed the handler
   * runs again from the top, and this call returns at once. Consumes no attempt.
   * @example await ctx.waitFor({ hours: 1 });
   */
  waitFor(duration: WaitDuration): Promise<void>;
  /** Like `waitFor`, until an absolute time; a past time returns at once. */
  waitUntil(date: Date): Promise<void>;
  /**
   * Creates a waitpoint token owned by this job. Wrap it in `ctx.run` to keep the same token
   * across resumes.
   * @example const token = await ctx.run('approval', () => ctx.createToken({ timeout: '7d' }));
   */
  createToken(options?: CreateTokenOptions): Promise<{ id: string }>;
  /**
   * Waits until the token is completed (`{ ok: true, output }`) or times out
   * (`{ ok: false, error: 'Token timed out' }`). While it is open the job is `waiting`.
   */
  waitForToken<T = unknown>(tokenId: string): Promise<TokenWaitResult<T>>;
}

const RESOLVED = Promise.resolve();

/** Step names starting with this are the context's own (wait markers). */
const RESERVED_STEP_PREFIX = '__';

/** @internal What a context needs from the processor. */
export interface ContextDeps {
  job: ClaimedJob;
  workerId: string;
  /** The job's writes, through the operations layer (which emits their hooks). */
  writes: JobRunOperations;
  report: (error: Error) => void;
  /** A fenced write found the job no longer this worker's: the processor gives the run up. */
  jobLost?(error: JobLostError): void;
}

/** @internal A context plus what the runner reads back after the handler ends. */
export class HandlerContext implements JobContext {
  /** Set once `setOutput` was called; the last value wins. */
  outputSet = false;
  output: unknown = undefined;
  private readonly pending = new Set<Promise<void>>();
  /** Step results of earlier runs plus this run's, by step name. */
  private readonly steps: Record<string, unknown>;
  /** Counts this run's timed waits, naming their markers in step data. */
  private waitCount = 0;
  /** Set once the job entered `waiting`: the run ends as a wait, whatever the handler does next. */
  waiting = false;

  constructor(
    private readonly deps: ContextDeps,
    private readonly deadline: JobDeadline | null,
  ) {
    this.steps = { ...(deps.job.stepData ?? {}) };
  }

  prolong(ms?: number): void {
    if (ms !== undefined) {
      ensure(
        RangeError,
        typeof ms === 'number' && Number.isFinite(ms) && ms > 0,
        'ms',
        'a finite number of milliseconds > 0',
        ms,
      );
    }
    if (!this.deadline) return;
    const timeoutMs = ms ?? this.deps.job.timeoutMs;
    this.deadline.reset(timeoutMs);
    this.recordProlong(timeoutMs);
  }

  onTimeout(callback: TimeoutCallback): void {
    checkFunction(TypeError, 'callback', callback);
    this.deadline?.onTimeout(callback);
  }

  setProgress(percent: number): Promise<void> {
    // Handlers often compute progress as a fraction (done / total * 100); the job stores an integer.
    // Keep this rule in step with ctx.setProgress of the forced-timeout worker (worker-source.ts).
    checkNumber(RangeError, 'percent', percent, 0, 100, PROGRESS_RULE);
    const progress = Math.round(percent);
    return this.write('setProgress', async () => {
      if (!(await this.deps.writes.setProgress(progress))) this.lost('the progress');
    });
  }

  setOutput(value: unknown): Promise<void> {
    requireJson('output', value);
    this.outputSet = true;
    this.output = value;
    return this.write('setOutput', async () => {
      if (!(await this.deps.writes.setOutput(value))) this.lost('the output');
    });
  }

  async run<T>(stepName: string, fn: () => T | Promise<T>): Promise<T> {
    // The name is a key of the stored step data, so it must be storable like any JSON string.
    ensure(
      ValidationError,
      typeof stepName === 'string' &&
        stepName.length > 0 &&
        !stepName.startsWith(RESERVED_STEP_PREFIX) &&
        unstorableStringReason(stepName) === null,
      'stepName',
      `a non-empty string not starting with "${RESERVED_STEP_PREFIX}", without NUL characters or lone UTF-16 surrogates`,
      stepName,
    );
    if (typeof fn !== 'function') throw new TypeError(`Expected the ctx.run step "${stepName}" to be given a function`);
    if (Object.hasOwn(this.steps, stepName)) return this.steps[stepName] as T;
    const result = await fn();
    const value = result === undefined ? null : requireJson(`step "${stepName}"`, result);
    if (!(await this.deps.writes.saveStep(stepName, value))) {
      throw this.lost(`step "${stepName}"`);
    }
    this.steps[stepName] = value;
    return value as T;
  }

  waitFor(duration: WaitDuration): Promise<void> {
    const ms = durationToMs(duration, 'duration');
    return this.timedWait((now) => timeAfter(now, ms, 'duration'));
  }

  waitUntil(date: Date): Promise<void> {
    requireDate('date', date);
    return this.timedWait(() => date);
  }

  createToken(options?: CreateTokenOptions): Promise<{ id: string }> {
    return this.deps.writes.createToken(options);
  }

  async waitForToken<T = unknown>(tokenId: string): Promise<TokenWaitResult<T>> {
    requireTokenId('tokenId', tokenId);
    const { writes } = this.deps;
    const token = await writes.getToken(tokenId);
    if (!token) throw new NotFoundError(`No waitpoint token with id ${tokenId}`);
    if (token.status !== 'waiting') return tokenResult<T>(token);
    const entered = await this.enterWait({ waitUntil: null, tokenId, now: writes.now() });
    if (entered.status === 'token_settled') return tokenResult<T>(entered.token);
    throw this.waitSignal(`waiting for token ${tokenId}`);
  }

  /**
   * A timed wait is remembered as a step `__wait:<n>` holding its wake-up time, so a resumed
   * run passes the same wait at once, and one resumed early waits for the same time again.
   */
  private async timedWait(wakeAt: (now: Date) => Date): Promise<void> {
    const name = `${RESERVED_STEP_PREFIX}wait:${this.waitCount++}`;
    const now = this.deps.writes.now();
    const stored = this.steps[name] as { until: string } | undefined;
    const until = stored ? new Date(stored.until) : wakeAt(now);
    if (until.getTime() <= now.getTime()) return;
    const step = stored ? undefined : { name, value: { until: until.toISOString() } };
    await this.enterWait({ waitUntil: until, tokenId: null, step, now });
    throw this.waitSignal(`waiting until ${until.toISOString()}`);
  }

  private async enterWait(input: {
    waitUntil: Date | null;
    tokenId: string | null;
    step?: { name: string; value: unknown };
    now: Date;
  }): Promise<EnterWaitResult> {
    await this.idle(); // progress and output writes land before the job leaves processing
    const result = await this.deps.writes.enterWait(input);
    if (result.status === 'lost') throw this.lost('the wait');
    if (result.status === 'waiting') {
      this.deadline?.stop();
      this.waiting = true;
    }
    return result;
  }

  private waitSignal(what: string): WaitSignal {
    const { job } = this.deps;
    return new WaitSignal(`Job ${job.id} (${job.jobType}) is ${what}; the handler runs again when it resumes`);
  }

  /** Tells the processor the job is lost (it gives the run up) and returns the error to throw. */
  private lost(what: string): JobLostError {
    const { job, workerId } = this.deps;
    const error = new JobLostError(
      `Job ${job.id} (${job.jobType}) is no longer processing under worker ${workerId}; ${what} was not recorded`,
    );
    this.deps.jobLost?.(error);
    return error;
  }

  /** Records a deadline move (prolong or an onTimeout extension); also refreshes the lock. */
  recordProlong(timeoutMs: number | null): void {
    void this.write('prolong', async () => {
      if (!(await this.deps.writes.prolong(timeoutMs))) this.lost('the prolong');
    });
  }

  /**
   * Resolves once every write started so far has ended. The runner waits for it before
   * recording the outcome: a progress or output write still in flight after completion would
   * be fenced off and lost.
   */
  idle(): Promise<void> {
    // Most handlers write nothing: no async function (and its promise) per job for them.
    return this.pending.size > 0 ? this.drainWrites() : RESOLVED;
  }

  private async drainWrites(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  /** Store errors inside a handler are reported, not thrown: an un-awaited call must not crash. */
  private write(what: string, run: () => Promise<unknown>): Promise<void> {
    const write = (async () => {
      try {
        await run();
      } catch (err) {
        this.deps.report(toError(err, `ctx.${what} of job ${this.deps.job.id} failed`));
      }
    })();
    this.pending.add(write);
    void write.finally(() => this.pending.delete(write));
    return write;
  }
}

function tokenResult<T>(token: WaitToken): TokenWaitResult<T> {
  return token.status === 'completed'
    ? { ok: true, output: token.output as T }
    : { ok: false, error: 'Token timed out' };
}
