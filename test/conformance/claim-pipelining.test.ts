/**
 * Claims in flight (Backend.claimsInFlight): while the store holds more work than a claim took, a
 * background processor keeps up to that many claims on their way, so the jobs of one run while the
 * next is being claimed (Redis: 2; PostgreSQL: 1). Each claim then asks for at most its share of
 * the slots, the slots are never overrun, and every job runs once. An idle processor still sends
 * one claim per wake-up (conformance/telemetry.test.ts).
 */
import { afterEach, expect, it, vi } from 'vitest';
import { ProcessingOperations } from '../../src/operations/processing.js';
import { backendOf } from '../../src/queue.js';
import { forEachBackend } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait.js';

forEachBackend('claims in flight', (ctx) => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('keeps up to claimsInFlight claims in flight through a backlog, within the slots, each job once', async () => {
    const queue = ctx.makeQueue();
    const backend = backendOf(queue);
    const lanes = backend.claimsInFlight ?? 1;
    expect(lanes).toBe(ctx.backend === 'redis' ? 2 : 1);
    // Every claim of a processor goes through ProcessingOperations.claim.
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with its own `this`
    const claim = ProcessingOperations.prototype.claim;
    let inFlight = 0;
    let mostInFlight = 0;
    const asked: number[] = [];
    vi.spyOn(ProcessingOperations.prototype, 'claim').mockImplementation(async function (
      this: ProcessingOperations,
      input,
    ) {
      asked.push(input.batchSize);
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      try {
        return await claim.call(this, input);
      } finally {
        inFlight--;
      }
    });
    const total = 200;
    await queue.addJobs(Array.from({ length: total }, (_, n) => ({ jobType: 'work', payload: { n } })));
    const runs = new Map<number, number>();
    let running = 0;
    let mostRunning = 0;
    const processor = queue.createProcessor(
      {
        work: async (payload) => {
          mostRunning = Math.max(mostRunning, ++running);
          const { n } = payload as { n: number };
          runs.set(n, (runs.get(n) ?? 0) + 1);
          await new Promise((resolve) => setImmediate(resolve));
          running--;
        },
      },
      { batchSize: 10, concurrency: 10 },
    );
    processor.startInBackground();
    try {
      await waitFor(async () => (await queue.countJobs({ status: 'completed' })) === total, {
        timeoutMs: 20_000,
        what: `${total} jobs completed`,
      });
    } finally {
      await processor.stopAndDrain();
    }

    expect(mostInFlight).toBe(lanes);
    expect(Math.max(...asked)).toBe(Math.ceil(10 / lanes));
    expect(mostRunning).toBeLessThanOrEqual(10);
    expect([...runs.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, n) => n));
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
  });
});
