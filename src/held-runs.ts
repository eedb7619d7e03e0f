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
import type { ClaimedJob } from './backend.js';

export interface HeldRun {
  readonly job: ClaimedJob;
  readonly startedAt: Date;
  /** Fires (reason: JobLostError) once the job is found to be no longer this worker's. */
  readonly lost: RunLoss;
}

/**
 * The loss of a run: an AbortController's abort and reason with one listener, without its cost.
 * Every job run holds one, and almost none fires: an AbortController with its signal and an
 * event listener cost several microseconds per job, a sizeable part of a no-op job's run.
 */
export class RunLoss {
  /** Set once the run is lost. */
  reason: JobLostError | undefined = undefined;
  private listener: ((reason: JobLostError) => void) | undefined;

  get aborted(): boolean {
    return this.reason !== undefined;
  }

  /** Marks the run lost and calls the listener; later calls do nothing. */
  abort(reason: JobLostError): void {
    if (this.reason) return;
    this.reason = reason;
    this.listener?.(reason);
  }

  /** Calls `listener` once the run is lost (at once if it already is); replaces an earlier listener. */
  onAbort(listener: (reason: JobLostError) => void): void {
    if (this.reason) listener(this.reason);
    else this.listener = listener;
  }
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

  add(job: ClaimedJob): HeldRun {
    const run: HeldRun = { job, startedAt: new Date(), lost: new RunLoss() };
    this.runs.add(run);
    // After the caller's synchronous part, which starts the handler: a timer costs tens of µs.
    queueMicrotask(() => this.schedule());
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

  /** Gives the run up: its signal fires; the runner then ends it as `lost`. */
  giveUp(run: HeldRun, error: JobLostError): void {
    run.lost.abort(error);
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
    const runs = [...this.runs].filter((r) => r.startedAt.getTime() <= due && !r.lost.aborted);
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
