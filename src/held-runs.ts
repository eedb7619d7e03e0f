/**
 * The runs a processor holds, and the lease check that finds the ones whose job is no longer
 * its own (reclaimed by the supervisor and perhaps running elsewhere). Fenced writes of a run
 * (progress, output, prolong, steps) find that out by themselves; a handler that never writes
 * is found by a periodic check of every run held longer than `leaseCheckInterval`: one backend
 * call for all of them. A lost run's abort signal fires with a JobLostError, which ends the run
 * and frees its concurrency slot.
 */
import type { Backend } from './backend.js';
import { JobLostError, QueueClosedError } from './errors.js';
import { toError } from './events.js';
import type { JobRecord } from './types.js';

/**
 * Whether a run was given up: lost once its job is found to be no longer this worker's. Most
 * runs are never lost, and an AbortController with a listener costs a processor more CPU per
 * job than the rest of its bookkeeping: the listeners here are plain callbacks, and an abort
 * signal is made only for a run that asks for one (a forced-timeout run's worker thread).
 */
export class RunLoss {
  private error: JobLostError | undefined;
  private listeners: ((error: JobLostError) => void)[] = [];
  private controller: AbortController | undefined;

  get isLost(): boolean {
    return this.error !== undefined;
  }

  /** Calls `listener` with the JobLostError once the run is lost (at once if it is already). */
  onLost(listener: (error: JobLostError) => void): void {
    if (this.error) listener(this.error);
    else this.listeners.push(listener);
  }

  /** An abort signal that fires (reason: the JobLostError) when the run is lost. */
  signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.error) this.controller.abort(this.error);
    }
    return this.controller.signal;
  }

  /** Marks the run lost; the first call wins. */
  giveUp(error: JobLostError): void {
    if (this.error) return;
    this.error = error;
    this.controller?.abort(error);
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener(error);
  }
}

export interface HeldRun {
  readonly job: JobRecord;
  readonly startedAt: Date;
  /** Lost (with a JobLostError) once the job is found to be no longer this worker's. */
  readonly lost: RunLoss;
}

export class HeldRuns {
  private readonly runs = new Set<HeldRun>();
  private timer: NodeJS.Timeout | undefined;
  private checking = false;
  private stopped = false;

  constructor(
    private readonly backend: Backend,
    private readonly workerId: string,
    private readonly intervalMs: number,
    /** Reports a failed check; `null` when a check succeeds again. */
    private readonly onCheckError: (error: Error | null) => void,
  ) {}

  add(job: JobRecord): HeldRun {
    const run: HeldRun = { job, startedAt: new Date(), lost: new RunLoss() };
    this.runs.add(run);
    this.schedule();
    return run;
  }

  /** The run ended (its handler returned, or it was given up). */
  remove(run: HeldRun): void {
    this.runs.delete(run);
    if (this.runs.size === 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  list(): HeldRun[] {
    return [...this.runs];
  }

  /** Gives the run up: its loss is signalled; the runner then ends it as `lost`. */
  giveUp(run: HeldRun, error: JobLostError): void {
    run.lost.giveUp(error);
  }

  private schedule(): void {
    if (this.timer || this.stopped || this.runs.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.check().finally(() => this.schedule());
    }, this.intervalMs);
    // The check never keeps a process alive by itself: the runs it watches may never end.
    this.timer.unref();
  }

  private async check(): Promise<void> {
    if (this.checking) return;
    const due = Date.now() - this.intervalMs;
    // Only runs held for a whole interval: most jobs end long before and cost no query.
    const runs = [...this.runs].filter((r) => r.startedAt.getTime() <= due && !r.lost.isLost);
    if (runs.length === 0) return;
    this.checking = true;
    try {
      const held = new Set(
        await this.backend.heldJobIds({ workerId: this.workerId, jobIds: runs.map((r) => r.job.id) }),
      );
      this.onCheckError(null);
      for (const run of runs) {
        if (held.has(run.job.id) || !this.runs.has(run)) continue;
        this.giveUp(
          run,
          new JobLostError(
            `Job ${run.job.id} (${run.job.jobType}) is no longer processing under worker ${this.workerId} (reclaimed or taken over); its run was given up: the abort signal fired and its concurrency slot is free`,
          ),
        );
      }
    } catch (err) {
      // A closed queue checks no more; its runs are left to the supervisor's reclaim.
      if (err instanceof QueueClosedError) {
        this.stop();
        return;
      }
      this.onCheckError(toError(err, 'checking that running jobs are still held failed'));
    } finally {
      this.checking = false;
    }
  }

  /** No more checks (the queue closed). Runs already held stay listed until they end. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
