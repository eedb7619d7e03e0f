/**
 * The third handler argument (SPEC §2.10, §4.6; DETAILS "Handler context"). Every write is
 * fenced by the backend: once the job is no longer this worker's, writes do nothing.
 */
import type { Backend } from './backend.js';
import { toError, type QueueEvents } from './events.js';
import type { JobDeadline, TimeoutCallback } from './job-deadline.js';
import type { Clock, JobRecord } from './types.js';
import { requireJson } from './validation.js';

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
   * Stores progress, an integer from 0 to 100, and emits `job:progress`.
   * Throws RangeError for any other value. Store errors are reported, never thrown.
   */
  setProgress(percent: number): Promise<void>;
  /**
   * Stores a JSON value as the job's `output` (last call wins) and emits `job:output`. When
   * used, the handler's return value is not stored. Throws ValidationError for a value that
   * is not JSON-storable. Store errors are reported, never thrown.
   */
  setOutput(value: unknown): Promise<void>;
}

/** @internal What a context needs from the processor. */
export interface ContextDeps {
  job: JobRecord;
  workerId: string;
  backend: Backend;
  clock: Clock;
  events: QueueEvents;
  report(error: Error): void;
}

/** @internal A context plus what the runner reads back after the handler ends. */
export class HandlerContext implements JobContext {
  /** Set once `setOutput` was called; the last value wins. */
  outputSet = false;
  output: unknown = undefined;
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly deps: ContextDeps,
    private readonly deadline: JobDeadline | null,
  ) {}

  prolong(ms?: number): void {
    if (ms !== undefined && (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0)) {
      throw new RangeError(`Expected \`ms\` of ctx.prolong to be a finite number of milliseconds > 0, got ${String(ms)}`);
    }
    if (!this.deadline) return;
    const timeoutMs = ms ?? this.deps.job.timeoutMs;
    this.deadline.reset(timeoutMs);
    this.recordProlong(timeoutMs);
  }

  onTimeout(callback: TimeoutCallback): void {
    if (typeof callback !== 'function') {
      throw new TypeError(`Expected the ctx.onTimeout callback to be a function, got ${typeof callback}`);
    }
    this.deadline?.onTimeout(callback);
  }

  setProgress(percent: number): Promise<void> {
    if (typeof percent !== 'number' || !Number.isInteger(percent) || percent < 0 || percent > 100) {
      throw new RangeError(`Expected progress to be an integer from 0 to 100, got ${String(percent)}`);
    }
    const { job, workerId, backend, clock, events } = this.deps;
    const progress = percent;
    return this.write('setProgress', async () => {
      if (await backend.setProgress({ jobId: job.id, workerId, progress, now: clock.now() })) {
        events.emit('job:progress', { jobId: job.id, progress });
      }
    });
  }

  setOutput(value: unknown): Promise<void> {
    requireJson('output', value);
    this.outputSet = true;
    this.output = value;
    const { job, workerId, backend, clock, events } = this.deps;
    return this.write('setOutput', async () => {
      if (await backend.setOutput({ jobId: job.id, workerId, output: value, now: clock.now() })) {
        events.emit('job:output', { jobId: job.id, output: value });
      }
    });
  }

  /** Records a deadline move (prolong or an onTimeout extension); also refreshes the lock. */
  recordProlong(timeoutMs: number | null): void {
    const { job, workerId, backend, clock } = this.deps;
    void this.write('prolong', () => backend.prolongJob({ jobId: job.id, workerId, timeoutMs, now: clock.now() }));
  }

  /**
   * Resolves once every write started so far has ended. The runner waits for it before
   * recording the outcome: a progress or output write still in flight after completion would
   * be fenced off and lost.
   */
  async idle(): Promise<void> {
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
