/**
 * Maintenance operations (SPEC §4.3, §4.9): reclaiming stuck jobs and removing old jobs and
 * events. The queue's methods and the supervisor's tasks both run these, so the reclaim window,
 * the retention cutoff and the hooks of a reclaim are worked out in one place.
 */
import { ValidationError } from '../errors.js';
import { throughputCutoff } from '../overview.js';
import { clampSpanMs, storableTimeBefore } from '../storable.js';
import { requireInteger } from '../validation.js';
import type { OperationsContext } from './context.js';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** How long a cleanup keeps rows, and how many it removes per statement or script. */
export interface Retention {
  daysToKeep: number;
  batchSize: number;
}

/** @internal */
export class MaintenanceOperations {
  constructor(private readonly ctx: OperationsContext) {}

  /**
   * Returns jobs processing for longer than `maxProcessingTimeMinutes` (or their own longer
   * timeoutMs) to pending, or fails them when no attempt is left. Returns how many were reclaimed.
   */
  async reclaimStuckJobs(maxProcessingTimeMinutes: number): Promise<number> {
    requireNonNegative('maxProcessingTimeMinutes', maxProcessingTimeMinutes);
    const { backend, clock, hooks } = this.ctx;
    const now = clock.now();
    const maxProcessingMs = clampSpanMs(now, maxProcessingTimeMinutes * MINUTE_MS);
    const result = await backend.reclaimStuckJobs({ maxProcessingMs, now });
    // A reclaimed job that ran out of attempts may have cancelled its pending dependents.
    hooks.cancelled([], result.cascaded);
    return result.requeuedIds.length + result.failedIds.length;
  }

  /** Removes finished jobs (and their events) last updated before the retention cutoff. */
  async cleanupOldJobs(retention: Retention): Promise<number> {
    return this.ctx.backend.cleanupOldJobs(this.cutoff(retention));
  }

  /** Removes events created before the retention cutoff. */
  async cleanupOldJobEvents(retention: Retention): Promise<number> {
    return this.ctx.backend.cleanupOldJobEvents(this.cutoff(retention));
  }

  /** Removes the throughput counters of minutes that have left the hour getThroughput reports. */
  async trimThroughput(): Promise<number> {
    return this.ctx.backend.trimThroughput({ olderThan: throughputCutoff(this.ctx.clock.now()) });
  }

  /** Days to keep → the instant before which rows go, no earlier than what the stores hold. */
  private cutoff({ daysToKeep, batchSize }: Retention) {
    requireNonNegative('daysToKeep', daysToKeep);
    requireInteger('batchSize', batchSize, 1);
    return { olderThan: storableTimeBefore(this.ctx.clock.now(), daysToKeep * DAY_MS), batchSize };
  }
}

function requireNonNegative(field: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new ValidationError(field, `Expected \`${field}\` to be a finite number >= 0, got ${String(value)}`);
  }
}
