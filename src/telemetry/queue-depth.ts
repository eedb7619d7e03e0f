/**
 * The queue depth gauge: how many jobs are in each status, read when the metrics are collected
 * (an observable gauge), not on any job's path.
 */
import { JOB_STATUSES, type JobStatus } from '../types.js';
import { ATTR, MESSAGING_SYSTEM_VALUE, METRIC } from './names.js';

/** What the gauge's callback reports to (an ObservableResult of `@opentelemetry/api`). */
interface DepthResult {
  observe(value: number, attributes?: Record<string, string>): void;
}

/** The part of an ObservableGauge the gauge uses. */
interface DepthGauge {
  addCallback(callback: (result: DepthResult) => void | Promise<void>): void;
  removeCallback(callback: (result: DepthResult) => void | Promise<void>): void;
}

/**
 * A Meter of `@opentelemetry/api`, typed by the one method the gauge calls, so the library's
 * types do not need that package.
 */
export interface QueueDepthMeter {
  createObservableGauge(
    name: string,
    options?: { description?: string | undefined; unit?: string | undefined; valueType?: number | undefined },
  ): DepthGauge;
}

/** A queue, or anything with its `getJobCounts()`: the gauge reports its `byStatus`. */
export interface QueueDepthSource {
  getJobCounts(): Promise<{ byStatus: StatusCounts }>;
}

/** A count per status; a status left out (or undefined) reports nothing. */
export type StatusCounts = { [S in JobStatus]?: number | undefined };

/** Where the gauge reads the depth: a queue, or a function returning a count per status. */
export type QueueDepthReader = QueueDepthSource | (() => Promise<StatusCounts>);

/**
 * Reports `queuedev.queue.depth` (unit `{job}`), one value per status
 * (`queuedev.job.status`), read each time the metrics are collected: from a queue's
 * `getJobCounts()` (each status counted up to its limit, 10,000), or from a function of yours.
 * A failing read reports nothing for that collection. Returns a function that stops reporting.
 * @example
 * const stop = registerQueueDepthGauge(metrics.getMeter('my-app'), queue);
 */
export function registerQueueDepthGauge(meter: QueueDepthMeter, source: QueueDepthReader): () => void {
  const readDepth = typeof source === 'function' ? source : async () => (await source.getJobCounts()).byStatus;
  const gauge = meter.createObservableGauge(METRIC.queueDepth, {
    description: 'Jobs in the queue, by status',
    unit: '{job}',
  });
  const callback = async (result: DepthResult): Promise<void> => {
    let depth: StatusCounts;
    try {
      depth = await readDepth();
    } catch {
      return; // no value beats a wrong one; the next collection reads again
    }
    for (const status of JOB_STATUSES) {
      const value = depth[status];
      if (typeof value === 'number' && Number.isFinite(value)) {
        result.observe(value, { [ATTR.messagingSystem]: MESSAGING_SYSTEM_VALUE, [ATTR.status]: status });
      }
    }
  };
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
}
