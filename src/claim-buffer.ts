/**
 * The claim-ahead buffer (`claimAhead`, docs/processing.md#claiming-ahead): jobs a background
 * processor claimed beyond its free slots, oldest claim first, until a slot starts them. Each is
 * processing and locked to the worker in the store, and the supervisor reclaims a job whose lock
 * is older than its threshold; a job waiting here is not stuck, so the buffer keeps its lease:
 * every `renewAfterMs` one backend call renews the lock of every job that has waited half that
 * long since its claim or last renewal. A job the renewal finds no longer this worker's (reclaimed
 * while the process stalled, perhaps running elsewhere) leaves the buffer without running here.
 * A graceful stop hands every job still here back to pending, in one call, without using an
 * attempt. A process that dies renews nothing: its buffered jobs are reclaimed like its running ones.
 */
import type { ClaimedJob } from './backend.js';
import { QueueClosedError } from './errors.js';
import { toError } from './events.js';

/** A job waiting for a slot, with when its lease was last written (real time, ms). */
export interface BufferedJob {
  readonly job: ClaimedJob;
  leasedAt: number;
}

/** What the buffer needs from its processor. */
export interface ClaimBufferHost {
  /** Renews the leases of these jobs; resolves with the ids still this worker's. */
  renewLeases(jobIds: number[]): Promise<number[]>;
  /** Hands these jobs back to pending; resolves with the ids handed back. */
  release(jobs: ClaimedJob[]): Promise<number[]>;
  /** A renewal failed (`null`: one succeeded again), for the processor's repeated-error reports. */
  renewalFailed(error: Error | null): void;
  report(error: Error): void;
  log(message: string, job: ClaimedJob): void;
  /** Jobs left the buffer without starting: room to claim more. */
  dropped(): void;
}

export class ClaimBuffer {
  private readonly jobs = new Map<number, BufferedJob>();
  private timer: NodeJS.Timeout | undefined;
  private renewing = false;

  constructor(
    private readonly host: ClaimBufferHost,
    /** Longest a buffered job goes without renewing its lease (at most 1 s, processor.ts). */
    private readonly renewAfterMs: number,
  ) {}

  get size(): number {
    return this.jobs.size;
  }

  /** Buffers claimed jobs; a job reclaimed while buffered and claimed again keeps only its new claim. */
  add(jobs: ClaimedJob[]): void {
    const leasedAt = Date.now();
    for (const job of jobs) {
      this.jobs.delete(job.id);
      this.jobs.set(job.id, { job, leasedAt });
    }
    this.schedule();
  }

  /** Takes the oldest buffered job out, to start it. */
  take(): BufferedJob | undefined {
    for (const [id, entry] of this.jobs) {
      this.jobs.delete(id);
      if (this.jobs.size === 0) this.unschedule();
      return entry;
    }
    return undefined;
  }

  /** Whether a job taken out has gone without renewal long enough to renew it before it starts. */
  needsRenewal(entry: BufferedJob): boolean {
    return Date.now() - entry.leasedAt >= this.renewAfterMs;
  }

  /**
   * Renews the lease of a job taken out to start: false when it is no longer this worker's (it
   * does not run here) or the store failed (it is left to reclaim).
   */
  async renewOne(entry: BufferedJob): Promise<boolean> {
    const { job } = entry;
    try {
      if ((await this.host.renewLeases([job.id])).includes(job.id)) return true;
      this.host.log(`job ${job.id} was reclaimed while claimed ahead; it does not run here`, job);
    } catch (err) {
      this.host.report(toError(err, `renewing the lock of claimed-ahead job ${job.id} failed; it is left to reclaim`));
    }
    return false;
  }

  /**
   * Hands every buffered job back to pending (a graceful stop), with `taken`: jobs taken out to
   * start that will not. A job the call does not hand back was no longer this worker's; a failed
   * call leaves the jobs to reclaim, and is reported.
   */
  async handBack(taken: ClaimedJob[] = []): Promise<void> {
    const jobs = [...taken, ...[...this.jobs.values()].map((e) => e.job)];
    this.jobs.clear();
    this.unschedule();
    if (jobs.length === 0) return;
    try {
      const released = new Set(await this.host.release(jobs));
      for (const job of jobs) {
        if (!released.has(job.id))
          this.host.log(`job ${job.id} was reclaimed while claimed ahead; not handed back`, job);
      }
    } catch (err) {
      this.host.report(
        toError(err, `handing back ${jobs.length} claimed-ahead job(s) failed; they are left to reclaim`),
      );
    }
  }

  private schedule(): void {
    if (this.timer || this.jobs.size === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.renewDue().finally(() => this.schedule());
    }, this.renewAfterMs);
    // Renewals never keep a process alive by themselves.
    this.timer.unref();
  }

  private unschedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One call for every job whose lease is half the renewal period old: so none gets older than about 1.5 periods. */
  private async renewDue(): Promise<void> {
    if (this.renewing) return;
    const sentAt = Date.now();
    const due = [...this.jobs.values()].filter((e) => sentAt - e.leasedAt >= this.renewAfterMs / 2);
    if (due.length === 0) return;
    this.renewing = true;
    try {
      const held = new Set(await this.host.renewLeases(due.map((e) => e.job.id)));
      this.host.renewalFailed(null);
      let dropped = false;
      for (const entry of due) {
        // Started, handed back or claimed again meanwhile: no longer this entry's to change.
        if (this.jobs.get(entry.job.id) !== entry) continue;
        if (held.has(entry.job.id)) {
          entry.leasedAt = sentAt;
        } else {
          this.jobs.delete(entry.job.id);
          this.host.log(`job ${entry.job.id} was reclaimed while claimed ahead; it does not run here`, entry.job);
          dropped = true;
        }
      }
      if (dropped) this.host.dropped();
    } catch (err) {
      // A closed queue renews no more; what is left is the supervisor's to reclaim.
      if (err instanceof QueueClosedError) return;
      this.host.renewalFailed(toError(err, 'renewing the locks of claimed-ahead jobs failed'));
    } finally {
      this.renewing = false;
    }
  }
}
