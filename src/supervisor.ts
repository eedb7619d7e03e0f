/**
 * The maintenance supervisor (SPEC §4.9, §2.10): reclaims stuck jobs, removes old jobs and
 * events, expires timed-out waitpoint tokens, trims the throughput counters to the last hour.
 * Each task is one atomic backend operation, so several supervisors can run at once.
 */
import { checkBoolean, checkFunction, checkInteger, checkKnownKeys, checkNumber, checkObject } from './checks.js';
import { ConfigError } from './errors.js';
import { ErrorReporter } from './error-reporter.js';
import { toError, type QueueEvents } from './events.js';
import type { Log } from './log.js';
import type { QueueOperations } from './operations/index.js';
import { MAX_TIMER_MS } from './storable.js';

export interface SupervisorOptions {
  /**
   * Milliseconds between runs of the background loop.
   * @default 60000
   * @example { intervalMs: 30_000 }
   */
  intervalMs?: number | undefined;
  /**
   * Processing time after which a job counts as stuck (its own longer timeoutMs wins).
   * @default 10
   * @example { stuckJobsTimeoutMinutes: 30 }
   */
  stuckJobsTimeoutMinutes?: number | undefined;
  /**
   * Retention of finished jobs in days; 0 disables the task.
   * @default 30
   * @example { cleanupJobsDaysToKeep: 7 }
   */
  cleanupJobsDaysToKeep?: number | undefined;
  /**
   * Retention of history events in days; 0 disables the task.
   * @default 30
   * @example { cleanupEventsDaysToKeep: 0 }
   */
  cleanupEventsDaysToKeep?: number | undefined;
  /**
   * Rows removed per statement or script.
   * @default 1000
   * @example { cleanupBatchSize: 500 }
   */
  cleanupBatchSize?: number | undefined;
  /**
   * Run the reclaim task.
   * @default true
   * @example { reclaimStuckJobs: false }
   */
  reclaimStuckJobs?: boolean | undefined;
  /**
   * Run the token expiry task.
   * @default true
   * @example { expireTimedOutTokens: false }
   */
  expireTimedOutTokens?: boolean | undefined;
  /**
   * Called when a task fails; the queue's `error` event fires as well. In the background loop a
   * failure that repeats every interval (the store is down) is reported once, and again when
   * its message changes or after the task has succeeded in between. With neither `onError` nor
   * an `error` listener, the failure is written to the queue's `logger` (the console: one line),
   * once per cause.
   * @default none
   * @example { onError: (error) => logger.error(error) }
   */
  onError?: ((error: Error) => void) | undefined;
  /**
   * Write each run's counts as a debug line to the queue's `logger` (or the console).
   * @default false
   * @example { verbose: true }
   */
  verbose?: boolean | undefined;
}

/** What one supervisor run did. */
export interface SupervisorRunResult {
  reclaimedJobs: number;
  cleanedUpJobs: number;
  cleanedUpEvents: number;
  expiredTokens: number;
}

export interface Supervisor {
  /** Runs every enabled task once. */
  start(): Promise<SupervisorRunResult>;
  /** Runs the tasks now and then every `intervalMs`, until stopped. */
  startInBackground(): void;
  /** Stops the loop; a run in progress finishes on its own. */
  stop(): void;
  /**
   * Stops the loop and resolves when the current run has ended, or after `timeoutMs`. While
   * the store is failing (the last task failed) a run in flight is not awaited: it can only fail.
   */
  stopAndDrain(timeoutMs?: number): Promise<void>;
  /** Whether the background loop is active. */
  isRunning(): boolean;
}

/** @internal What a supervisor needs from its queue. */
export interface SupervisorHost {
  /** The tasks: the same operations the queue's methods run, hooks included. */
  operations: QueueOperations;
  /** Where errors are reported (QueueEvents.reportError). */
  events: QueueEvents;
  /** The queue's log: errors nobody else hears, and the runs when `verbose` is set. */
  log: Log;
}

interface ResolvedSupervisorOptions {
  intervalMs: number;
  stuckJobsTimeoutMinutes: number;
  cleanupJobsDaysToKeep: number;
  cleanupEventsDaysToKeep: number;
  cleanupBatchSize: number;
  reclaimStuckJobs: boolean;
  expireTimedOutTokens: boolean;
  /** Absent: errors go to the `error` listeners, or with none to the queue's log. */
  onError?: (error: Error) => void;
  verbose: boolean;
}

const DEFAULTS = {
  intervalMs: 60_000,
  stuckJobsTimeoutMinutes: 10,
  cleanupJobsDaysToKeep: 30,
  cleanupEventsDaysToKeep: 30,
  cleanupBatchSize: 1000,
  reclaimStuckJobs: true,
  expireTimedOutTokens: true,
  verbose: false,
};

/** Validates supervisor options and applies defaults; throws ConfigError naming the field. */
export function resolveSupervisorOptions(options: unknown): ResolvedSupervisorOptions {
  // Supervisor options are refused at createSupervisor with a ConfigError.
  const E = ConfigError;
  const o = checkObject(E, 'options', options === undefined ? {} : options, 'an object of supervisor options');
  const known = [...Object.keys(DEFAULTS), 'onError'];
  checkKnownKeys(E, '', o, known, 'supervisor options');
  const number = (field: keyof typeof DEFAULTS, min: number, rule: string, integer = false, max = Infinity): number => {
    const v = o[field] ?? DEFAULTS[field];
    return integer ? checkInteger(E, field, v, min, max, rule) : checkNumber(E, field, v, min, max, rule);
  };
  const flag = (field: keyof typeof DEFAULTS): boolean => checkBoolean(E, field, o[field] ?? DEFAULTS[field]);
  if (o.onError !== undefined) checkFunction(E, 'onError', o.onError);
  // A timer longer than MAX_TIMER_MS fires after 1 ms in Node.js, which would spin the loop.
  const intervalMs = number('intervalMs', 1, `a number of milliseconds from 1 to ${MAX_TIMER_MS}`, false, MAX_TIMER_MS);
  return {
    intervalMs,
    stuckJobsTimeoutMinutes: number('stuckJobsTimeoutMinutes', 0, 'a finite number of minutes >= 0'),
    cleanupJobsDaysToKeep: number('cleanupJobsDaysToKeep', 0, 'a finite number of days >= 0 (0 disables)'),
    cleanupEventsDaysToKeep: number('cleanupEventsDaysToKeep', 0, 'a finite number of days >= 0 (0 disables)'),
    cleanupBatchSize: number('cleanupBatchSize', 1, 'an integer from 1 to 2147483647', true, 2_147_483_647),
    reclaimStuckJobs: flag('reclaimStuckJobs'),
    expireTimedOutTokens: flag('expireTimedOutTokens'),
    onError: o.onError as ((error: Error) => void) | undefined,
    verbose: flag('verbose'),
  };
}

export function createSupervisor(host: SupervisorHost, options?: SupervisorOptions): Supervisor {
  return new JobSupervisor(host, resolveSupervisorOptions(options));
}

class JobSupervisor implements Supervisor {
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<unknown> = Promise.resolve();
  private readonly errors: ErrorReporter;
  /** The last task run failed: the store is likely down. */
  private failing = false;

  /** The queue's log with this supervisor's `verbose`. */
  private readonly log: Log;

  constructor(
    private readonly host: SupervisorHost,
    private readonly options: ResolvedSupervisorOptions,
  ) {
    this.log = host.log.withVerbose(options.verbose);
    // No source to lead the lines: each error's message starts with `supervisor: `.
    this.errors = new ErrorReporter(host.events, this.log, undefined, options.onError);
  }

  start(): Promise<SupervisorRunResult> {
    return this.run(false);
  }

  startInBackground(): void {
    if (this.running) return;
    this.running = true;
    const tick = async () => {
      await this.run(true);
      // The next run is timed from the end of this one, so runs never overlap.
      if (this.running) this.timer = setTimeout(() => void tick(), this.options.intervalMs);
    };
    void tick();
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
  }

  async stopAndDrain(timeoutMs = 30_000): Promise<void> {
    this.stop();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    try {
      if (!this.failing) await Promise.race([this.current.then(() => undefined), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  isRunning(): boolean {
    return this.running;
  }

  /** One run of the tasks; `background`: the loop's, whose failures after stop() are no news. */
  private run(background: boolean): Promise<SupervisorRunResult> {
    const run = this.runTasks(background);
    this.current = run;
    return run;
  }

  /** Runs the enabled tasks; a failing task is reported and counts 0, the others still run. */
  private async runTasks(background: boolean): Promise<SupervisorRunResult> {
    const task = (name: string, run: () => Promise<number>) => this.task(name, run, background);
    const o = this.options;
    const { maintenance, tokens } = this.host.operations;
    const batchSize = o.cleanupBatchSize;
    const result: SupervisorRunResult = { reclaimedJobs: 0, cleanedUpJobs: 0, cleanedUpEvents: 0, expiredTokens: 0 };
    if (o.reclaimStuckJobs) {
      result.reclaimedJobs = await task('reclaiming stuck jobs', () =>
        maintenance.reclaimStuckJobs(o.stuckJobsTimeoutMinutes),
      );
    }
    // 0 days switches a cleanup task off here; queue.cleanupOldJobs(0) removes every finished job.
    if (o.cleanupJobsDaysToKeep > 0) {
      result.cleanedUpJobs = await task('cleaning up old jobs', () =>
        maintenance.cleanupOldJobs({ daysToKeep: o.cleanupJobsDaysToKeep, batchSize }),
      );
    }
    if (o.cleanupEventsDaysToKeep > 0) {
      result.cleanedUpEvents = await task('cleaning up old job events', () =>
        maintenance.cleanupOldJobEvents({ daysToKeep: o.cleanupEventsDaysToKeep, batchSize }),
      );
    }
    if (o.expireTimedOutTokens)
      result.expiredTokens = await task('expiring timed-out tokens', () => tokens.expireTimedOut());
    // Always on, with no option: getThroughput reads the last hour only, the trim removes a few
    // rows per run, and nothing else removes them on PostgreSQL.
    await task('trimming throughput counters', () => maintenance.trimThroughput());
    this.log.debug(`supervisor run: ${JSON.stringify(result)}`, { ...result });
    return result;
  }

  private async task(name: string, run: () => Promise<number>, background: boolean): Promise<number> {
    try {
      const count = await run();
      this.failing = false;
      this.errors.taskSucceeded(name);
      return count;
    } catch (err) {
      this.failing = true;
      const error = toError(err, `supervisor: ${name} failed`);
      // The loop reports a repeating failure once, and none once stopped: a run that outlives
      // stop() or queue.close() fails for that, which is no news to whoever stopped it. A
      // direct start() always reports.
      if (!background) this.errors.report(error);
      else if (this.running) this.errors.taskFailed(name, error);
      return 0;
    }
  }
}
