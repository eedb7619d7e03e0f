/**
 * What the restart tests share: a background processor whose handler counts its runs per job
 * (by a number in the payload, since job ids can be reused after a Redis restart), and the
 * errors it reports on both channels.
 */
import type { Processor } from '../../src/processor.js';
import type { JobQueue } from '../../src/queue.js';
import { sleep } from '../helpers/wait.js';

/**
 * These tests stop the servers every other test uses, so they run only under
 * vitest.restart.config.ts (which sets this variable): alone, after the main suite. Any other
 * run skips them rather than pulling the store out from under the tests running beside them.
 */
export const RESTART_TESTS_ENABLED = process.env.QUEUEDEV_RESTART_TESTS === '1';

/** How long a server stays down. */
export const OUTAGE_MS = 2000;

export interface Workload {
  processor: Processor;
  /** Handler runs per payload number. */
  runs: Map<number, number>;
  /** Errors passed to the processor's onError, and emitted as the queue's `error` event. */
  onError: Error[];
  errorEvents: Error[];
  /** Adds jobs numbered `from` to `to - 1` in one batch. */
  add(from: number, to: number): Promise<void>;
  /** Whether every job numbered `from` to `to - 1` has run. */
  ran(from: number, to: number): boolean;
}

/**
 * Starts a processor that polls often (so the outage is met by claims) and whose handler takes
 * a little time (so jobs are in flight when the server goes down).
 */
export function startWorkload(queue: JobQueue): Workload {
  const runs = new Map<number, number>();
  const onError: Error[] = [];
  const errorEvents: Error[] = [];
  queue.on('error', (e) => errorEvents.push(e));
  const processor = queue.createProcessor(
    {
      count: async (payload: { n: number }) => {
        runs.set(payload.n, (runs.get(payload.n) ?? 0) + 1);
        await sleep(25);
      },
    },
    { pollInterval: 100, concurrency: 4, batchSize: 4, onError: (e) => onError.push(e) },
  );
  processor.startInBackground();
  return {
    processor,
    runs,
    onError,
    errorEvents,
    async add(from, to) {
      await queue.addJobs(
        Array.from({ length: to - from }, (_, i) => ({ jobType: 'count', payload: { n: from + i } })),
      );
    },
    ran: (from, to) => Array.from({ length: to - from }, (_, i) => from + i).every((n) => runs.has(n)),
  };
}

/** The payload number of a job added by a workload. */
export function numberOf(job: { payload: unknown }): number {
  return (job.payload as { n: number }).n;
}

/** Whether two lists hold the same error objects in the same order. */
export function sameErrors(a: Error[], b: Error[]): boolean {
  return a.length === b.length && a.every((e, i) => e === b[i]);
}
