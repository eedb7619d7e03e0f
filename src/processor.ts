/**
 * The processor (SPEC §4.6, DETAILS "Group limits and concurrency"): claims due jobs, runs their
 * handlers with a concurrency limit, and hands each outcome to the processing operations
 * (operations/processing.ts), which record it and emit its hooks. Shared by both backends; the
 * backend only makes each step atomic.
 */
import type { Backend, ClaimedJob } from './backend.js';
import { ClaimBuffer, type BufferedJob } from './claim-buffer.js';
import type { JobLostError } from './errors.js';
import { ErrorReporter } from './error-reporter.js';
import { toError, type QueueEvents } from './events.js';
import { HeldRuns } from './held-runs.js';
import type { Log, LogInput } from './log.js';
import { runJob, type RunOutcome } from './job-runner.js';
import type { ProcessingOperations, QueueOperations } from './operations/index.js';
import {
  requireHandlers,
  resolveProcessorOptions,
  type JobHandler,
  type ProcessorOptions,
  type ResolvedProcessorOptions,
} from './processor-options.js';

/** What `processor.stats()` returns: the processor's state at this moment. */
export interface ProcessorStats {
  /** Whether the background loop is active. */
  running: boolean;
  /** The `concurrency` option. */
  concurrency: number;
  /** Concurrency slots taken by running handlers (at most `concurrency`). */
  slotsInUse: number;
  /** Jobs claimed ahead of free slots (`claimAhead`) that have not started yet. */
  claimedAhead: number;
  /** The jobs whose handlers hold a slot, oldest first. */
  jobs: { id: number; jobType: string; startedAt: Date }[];
  /**
   * Handlers given up on (their job timed out or was lost to reclaim) whose code has not
   * returned yet. They hold no slot, but still use memory and, if they never return, leak.
   */
  abandoned: number;
}

export interface Processor {
  /** Claims one batch, runs it and resolves with the number of jobs processed (serverless use). */
  start(): Promise<number>;
  /** Processes until stopped: claims while there is work, otherwise waits for a wake-up or `pollInterval`. */
  startInBackground(): void;
  /**
   * Stops claiming and starts no job it has not started: jobs claimed ahead go back to pending at
   * once (no attempt used). Running handlers are not awaited (their outcomes are still recorded).
   */
  stop(): void;
  /**
   * Stops as stop() does and resolves as soon as running handlers have ended, their outcomes are
   * recorded and the jobs claimed ahead are handed back, or after `timeoutMs`. A claim in flight
   * is awaited (its jobs, locked to this worker, are handed back), except while the store fails:
   * then nothing runs yet and nothing is awaited.
   */
  stopAndDrain(timeoutMs?: number): Promise<void>;
  /** Whether the background loop is active. */
  isRunning(): boolean;
  /** Running handlers and the slots they hold. */
  stats(): ProcessorStats;
}

/** @internal What a processor needs from its queue. */
export interface ProcessorHost {
  /** For wake-up subscriptions and lease checks, which change no job. */
  backend: Backend;
  /** Every job write and its hooks (claims, outcomes, the handler context's writes, cron). */
  operations: QueueOperations;
  /** Where errors are reported; job hooks come from the operations. */
  events: QueueEvents;
  /** The queue's log; the processor writes its debug lines there when its `verbose` is set. */
  log: Log;
  /**
   * SPEC §4.4 rule 1: enqueue the due cron schedules before each claim. The queue wires it to
   * its cron operations; absent, nothing is enqueued.
   */
  enqueueDueCronJobs?: () => Promise<number>;
}

/** Waits after consecutive store errors in the loop, growing up to the last value. */
const ERROR_BACKOFF_MS = [100, 250, 500, 1000, 2000, 5000];
/** Longest a claimed-ahead job goes without renewing its lock, waiting or when it starts (claim-buffer.ts). */
const RENEW_AFTER_MAX_MS = 1000;
/** Longest a drain waits for a claim in flight (see claimInFlight). */
const CLAIM_WAIT_MS = 2000;
/** Longest a background processor's first claim waits for its wake-up subscription (see startInBackground). */
const SUBSCRIBE_WAIT_MS = 2000;

/** Resolves once `promise` settles, however, or after `ms`, whichever comes first. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([promise.catch(() => undefined), late]);
  clearTimeout(timer);
}

export function createProcessor(host: ProcessorHost, handlers: unknown, options?: ProcessorOptions): Processor {
  return new JobProcessor(host, requireHandlers(handlers), resolveProcessorOptions(options));
}

class JobProcessor implements Processor {
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private loopGeneration = 0;
  /** Every job in progress, background or one-shot, until its outcome is recorded. */
  private readonly active = new Set<Promise<void>>();
  /** Handlers running now: what `concurrency` limits. A slot frees when its handler ends or is given up. */
  private handlersRunning = 0;
  /**
   * Jobs claimed ahead of free slots (`claimAhead`), oldest claim first: locked to this worker
   * in the store, their leases kept; they start as slots free, or go back to pending on stop().
   */
  private readonly buffered: ClaimBuffer;
  /** Hand-backs of buffered jobs under way (stop()); a drain waits for them. */
  private readonly handBacks = new Set<Promise<void>>();
  /** Runs given up whose handler code has not returned (see ProcessorStats.abandoned). */
  private abandoned = 0;
  private readonly held: HeldRuns;
  /** Where errors go: onError, the `error` listeners, else the log; repeating ones once. */
  private readonly errors: ErrorReporter;
  /** Whether the processor has started once (its first start() or startInBackground()). */
  private started = false;
  /** The background loop's claim while it is in flight. */
  private claiming: Promise<unknown> | undefined;
  /** The last claim failed: the store is failing, and a claim in flight may hang for long. */
  private claimFailing = false;
  /** When the background loop last enqueued due cron jobs (real time, ms). */
  private lastCronCheck = Number.NEGATIVE_INFINITY;
  private readonly processing: ProcessingOperations;
  private wakeRequested = false;
  /**
   * The store may hold jobs this processor left there for lack of room: its last claim came
   * back full, or it skipped claiming while its slots (or its claim-ahead buffer) were taken.
   * Only then does a slot that frees look for work; otherwise a new job's wake-up does.
   */
  private leftWork = true;
  /** The job announced by the only wake-up since the loop's last claim began, if it named one. */
  private hintedJobId: number | undefined;
  private wakeSleeper: (() => void) | undefined;
  private unsubscribe: Promise<(() => Promise<void>) | undefined> = Promise.resolve(undefined);
  /** The store's wake-ups reach this processor: its subscription is in place. */
  private subscribed = false;
  /** The queue's log with this processor's `verbose`. */
  private readonly logger: Log;

  constructor(
    private readonly host: ProcessorHost,
    private readonly handlers: Record<string, JobHandler>,
    private readonly options: ResolvedProcessorOptions,
  ) {
    this.logger = host.log.withVerbose(options.verbose);
    this.errors = new ErrorReporter(host.events, this.logger, `processor ${options.workerId}`, options.onError);
    this.processing = host.operations.processing({
      workerId: options.workerId,
      report: (e) => this.report(e),
      log: this.logger,
    });
    this.buffered = new ClaimBuffer(
      {
        renewLeases: (jobIds) => this.processing.renewLeases(jobIds),
        release: (jobs) => this.processing.release(jobs),
        renewalFailed: (e) =>
          e ? this.errors.taskFailed('lease renewal', e) : this.errors.taskSucceeded('lease renewal'),
        report: (e) => this.report(e),
        log: (message, job) => this.log(message, { jobId: job.id, jobType: job.jobType }),
        dropped: () => this.wake(),
      },
      Math.min(options.leaseCheckInterval, RENEW_AFTER_MAX_MS),
    );
    this.held = new HeldRuns(host.backend, options.workerId, options.leaseCheckInterval, (e) =>
      e ? this.errors.taskFailed('lease check', e) : this.errors.taskSucceeded('lease check'),
    );
  }

  async start(): Promise<number> {
    this.announceTypes();
    let jobs: ClaimedJob[];
    try {
      jobs = await this.claim(this.options.batchSize);
    } catch (err) {
      const error = toError(err);
      this.errors.report(error, true);
      throw error;
    }
    let next = 0;
    const lane = async () => {
      while (next < jobs.length) await this.track(jobs[next++]!);
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, jobs.length) }, lane));
    await this.processing.flush();
    return jobs.length;
  }

  startInBackground(): void {
    if (this.running) return;
    this.running = true;
    this.announceTypes();
    const previousLoop = this.loopDone;
    const subscription = this.host.backend
      .subscribeJobAvailable((jobId) => this.wake(jobId))
      .then(
        (unsubscribe) => {
          if (this.unsubscribe === subscription) this.subscribed = this.running;
          return unsubscribe;
        },
        (err: unknown) => {
          this.report(toError(err, 'subscribing to job wake-ups failed; polling only'));
          return undefined;
        },
      );
    this.unsubscribe = subscription;
    // The first claim waits for the subscription (a while at most): from then on a job added is
    // either found by that claim or announced to this processor, and none waits for a poll. A
    // subscription still being made after that is in place later, and its listener is called then.
    const loop = settledWithin(subscription, SUBSCRIBE_WAIT_MS).then(() => this.loop());
    this.loopDone = Promise.all([previousLoop, loop]).then(() => undefined);
    this.log(`started in background (worker ${this.options.workerId})`);
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.subscribed = false;
    // No buffered job starts from now on: they go back to pending at once, for any processor.
    this.handBack();
    this.wake();
    void this.unsubscribe.then(async (unsubscribe) => {
      try {
        await unsubscribe?.();
      } catch (err) {
        this.report(toError(err, 'unsubscribing from job wake-ups failed'));
      }
    });
    this.log('stopped');
  }

  async stopAndDrain(timeoutMs = 30_000): Promise<void> {
    this.stop();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    const drained = (async () => {
      // A claim in flight hands its jobs back when it lands (see loop).
      await this.claimInFlight();
      while (this.active.size > 0 || this.handBacks.size > 0) await Promise.all([...this.active, ...this.handBacks]);
      await this.processing.flush();
    })();
    try {
      await Promise.race([drained, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  isRunning(): boolean {
    return this.running;
  }

  /**
   * Waits for the loop's claim in flight: the jobs it claims are locked to this worker and must
   * run. A failing store can hold a claim until the driver gives up (ioredis retries for about
   * ten seconds) while nothing runs, so it is awaited only while claims succeed, and at most
   * CLAIM_WAIT_MS: a healthy claim takes milliseconds.
   */
  private async claimInFlight(): Promise<void> {
    const claim = this.claiming;
    if (!claim || this.claimFailing) return;
    await settledWithin(claim, CLAIM_WAIT_MS);
  }

  stats(): ProcessorStats {
    const runs = this.held.list().sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
    return {
      running: this.running,
      concurrency: this.options.concurrency,
      slotsInUse: this.handlersRunning,
      claimedAhead: this.buffered.size,
      jobs: runs.map((r) => ({ id: r.job.id, jobType: r.job.jobType, startedAt: r.startedAt })),
      abandoned: this.abandoned,
    };
  }

  private async loop(): Promise<void> {
    // A stop() followed at once by startInBackground() must not leave two loops running.
    const generation = ++this.loopGeneration;
    let errors = 0;
    const ahead = this.options.claimAhead;
    while (this.running && generation === this.loopGeneration) {
      this.startBuffered();
      // Free slots (none while jobs are buffered) plus the room left in the claim-ahead buffer.
      const room = this.options.concurrency - this.handlersRunning + ahead - this.buffered.size;
      // The buffer is refilled once half empty, in one claim rather than a job at a time.
      if (room <= 0 || (ahead > 0 && this.buffered.size > ahead / 2)) {
        this.leftWork = true;
        await this.sleep(this.options.pollInterval); // a job ending wakes it
        continue;
      }
      // Straight from the wake-up to the claim: no timer between them.
      const jobId = this.hintedJobId;
      this.hintedJobId = undefined;
      this.wakeRequested = false;
      const wanted = Math.min(this.options.batchSize, room);
      let jobs: ClaimedJob[];
      try {
        // The claimed jobs are buffered before the claim counts as settled, so a drain waiting
        // for it finds them handed back (or starting).
        const claim = this.claim(wanted, jobId).then((claimed) => {
          this.buffered.add(claimed);
          // Stopped during the claim: nothing starts; the jobs go back at once.
          if (!this.running) this.handBack();
          return claimed;
        });
        this.claiming = claim;
        jobs = await claim;
        this.leftWork = jobs.length === wanted;
        errors = 0;
        this.claimFailing = false;
        this.errors.taskSucceeded('claim');
      } catch (err) {
        this.claimFailing = true;
        // A claim cut short by close() is no news to whoever closed the queue.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- stop() may have run during the claim
        if (this.running) this.errors.taskFailed('claim', toError(err, 'claiming jobs failed'));
        await this.sleep(ERROR_BACKOFF_MS[Math.min(errors++, ERROR_BACKOFF_MS.length - 1)]!, false);
        continue;
      } finally {
        this.claiming = undefined;
      }
      this.startBuffered();
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a wake-up may have come during the claim
      if (jobs.length === wanted || this.wakeRequested) continue; // more work may be waiting
      await this.sleep(this.options.pollInterval);
    }
  }

  /**
   * SPEC §4.4 rule 1: due cron schedules are enqueued before claiming. The background loop does
   * it at most once per poll interval, not before every slot refill. A failure is reported and
   * does not keep the processor from claiming.
   */
  private async enqueueDueCronJobs(): Promise<void> {
    const enqueue = this.host.enqueueDueCronJobs;
    if (!enqueue) return;
    const now = Date.now();
    if (this.running && now - this.lastCronCheck < this.options.pollInterval) return;
    this.lastCronCheck = now;
    try {
      await enqueue();
      this.errors.taskSucceeded('cron');
    } catch (err) {
      this.errors.taskFailed('cron', toError(err, 'enqueueing due cron jobs failed'));
    }
  }

  private async claim(batchSize: number, jobId?: number): Promise<ClaimedJob[]> {
    await this.enqueueDueCronJobs();
    const { jobTypes, groupConcurrency } = this.options;
    return this.processing.claim({ batchSize, jobTypes, groupConcurrency, ...(jobId === undefined ? {} : { jobId }) });
  }

  /**
   * Says once, at the first start, which types this processor claims and cannot run, since their
   * jobs fail with reason `no_handler`: those its `jobType` option names without a handler, or
   * every type when it has no handler at all. A job of another type without a handler is
   * reported as it fails (a failed attempt is logged).
   */
  private announceTypes(): void {
    if (this.started) return;
    this.started = true;
    const fields = { workerId: this.options.workerId };
    const { jobTypes } = this.options;
    if (jobTypes === undefined) {
      if (Object.keys(this.handlers).some((type) => handlerOf(this.handlers, type))) return;
      this.logger.warn(
        `processor ${this.options.workerId} has no handlers: every job it claims fails with reason no_handler. ` +
          'Give createProcessor a handler per job type',
        fields,
      );
      return;
    }
    const missing = jobTypes.filter((type) => !handlerOf(this.handlers, type));
    if (missing.length === 0) return;
    const types = missing.map((type) => JSON.stringify(type)).join(', ');
    this.logger.warn(
      `processor ${this.options.workerId} has no handler for job type ${types} of its jobType option: ` +
        `the jobs of ${missing.length === 1 ? 'this type' : 'these types'} it claims fail with reason no_handler. ` +
        `Add a handler, or leave the type out of jobType`,
      { ...fields, jobTypes: missing },
    );
  }

  /** Starts buffered jobs, oldest claim first, while slots are free; none after stop(). */
  private startBuffered(): void {
    while (this.running && this.handlersRunning < this.options.concurrency) {
      const entry = this.buffered.take();
      if (!entry) return;
      void this.track(entry.job, entry);
    }
  }

  /** Hands the buffer's jobs (and `taken`, out of it already) back to pending, tracked for a drain to wait for. */
  private handBack(taken: ClaimedJob[] = []): void {
    if (this.buffered.size === 0 && taken.length === 0) return;
    const done = this.buffered.handBack(taken).finally(() => this.handBacks.delete(done));
    this.handBacks.add(done);
  }

  /** Runs a job and keeps it in `active` until its outcome is recorded. */
  private track(job: ClaimedJob, buffered?: BufferedJob): Promise<void> {
    const entry: { run?: Promise<void> } = {};
    const run = this.settle(entry, job, buffered);
    entry.run = run;
    this.active.add(run);
    return run;
  }

  /**
   * process() with its errors reported, leaving `active` once settled: one promise per job
   * rather than a chain of three. `entry.run` is set before the first await of process() ends.
   */
  private async settle(entry: { run?: Promise<void> }, job: ClaimedJob, buffered?: BufferedJob): Promise<void> {
    try {
      await this.process(job, buffered);
    } catch (err) {
      this.report(toError(err, `processing job ${job.id} failed`));
    } finally {
      if (entry.run) this.active.delete(entry.run);
      // A recorded outcome that released dependents or a barrier, or put the job back due at
      // once, makes the store signal every subscribed processor, this one too. The processor
      // looks for work itself without a subscription, and when the job's group slot frees: a
      // claim that filled the group leaves the group's other due jobs where they are, unparked,
      // so no store signals their release.
      if (!this.subscribed || job.group !== null) this.wake();
    }
  }

  private async process(job: ClaimedJob, buffered?: BufferedJob): Promise<void> {
    this.handlersRunning++;
    if (buffered && !(await this.mayStart(buffered))) {
      this.handlersRunning--;
      this.startBuffered();
      this.wake();
      return;
    }
    const run = this.held.add(job);
    const telemetry = this.processing.startRun(job);
    let outcome: RunOutcome;
    try {
      const deps = {
        job,
        workerId: this.options.workerId,
        writes: this.processing.run(job),
        report: (e: Error) => this.report(e),
        jobLost: (e: JobLostError) => this.held.giveUp(run, e),
      };
      outcome = await telemetry.within(() => runJob(job, handlerOf(this.handlers, job.jobType), deps, run.lost));
    } finally {
      // The slot is refilled at once, while the outcome is still being written.
      this.held.remove(run);
      this.handlersRunning--;
      this.startBuffered();
      if (this.leftWork) this.wake();
    }
    if (outcome.abandoned) {
      this.abandoned++;
      void outcome.abandoned.finally(() => this.abandoned--);
    }
    try {
      if (outcome.status === 'lost') {
        // Nothing is written: the job belongs to whoever holds it now.
        this.report(outcome.error);
        this.log(outcome.error.message, { jobId: job.id, jobType: job.jobType, error: outcome.error });
      } else if (outcome.status === 'completed') {
        await telemetry.settle('complete', () => this.processing.complete(job, outcome));
      } else if (outcome.status === 'waiting') {
        this.processing.waited(job);
      } else {
        await telemetry.settle('fail', () => this.processing.fail(job, outcome));
      }
    } finally {
      // The run's span ends once its outcome is written.
      telemetry.end(outcome);
    }
  }

  /**
   * Whether a job taken from the claim-ahead buffer starts. One whose lease has gone a while
   * without renewal renews it first, so its lease counts from its start; one reclaimed meanwhile
   * is someone else's now and does not run here. One whose renewal outlasted a stop() goes back.
   */
  private async mayStart(entry: BufferedJob): Promise<boolean> {
    if (!this.buffered.needsRenewal(entry)) return true;
    if (!(await this.buffered.renewOne(entry))) return false;
    if (this.running) return true;
    this.handBack([entry.job]);
    return false;
  }

  /** Resolves after `ms`, or earlier on a wake-up or stop (unless `wakeable` is false). */
  private sleep(ms: number, wakeable = true): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wakeSleeper === sleeper) this.wakeSleeper = undefined;
        resolve();
      };
      const sleeper = wakeable ? done : () => (this.running ? undefined : done());
      const timer = setTimeout(done, ms);
      this.wakeSleeper = sleeper;
    });
  }

  /**
   * `jobId`: the job a wake-up announced. It is kept only when it is the one wake-up since the
   * last claim began: after any other, the next claim is the ordered one.
   */
  private wake(jobId?: number): void {
    this.hintedJobId = this.wakeRequested ? undefined : jobId;
    this.wakeRequested = true;
    this.wakeSleeper?.();
  }

  /** An error goes to onError and the `error` event, or to the log when neither exists (ErrorReporter). */
  private report(error: Error): void {
    this.errors.report(error);
  }

  private log(message: string, fields: LogInput = {}): void {
    this.logger.debug(`processor ${this.options.workerId}: ${message}`, { workerId: this.options.workerId, ...fields });
  }
}

/** The handler of `jobType`: an own property that is a function (not one inherited, such as `toString`). */
function handlerOf(handlers: Record<string, JobHandler>, jobType: string): JobHandler | undefined {
  const handler = Object.hasOwn(handlers, jobType) ? handlers[jobType] : undefined;
  return typeof handler === 'function' ? handler : undefined;
}
