/**
 * Claiming ahead (`claimAhead`, docs/processing.md): a processor keeps jobs claimed beyond its
 * free slots, and they keep every guarantee of a claimed job: locked to the worker in the store,
 * counted by group limits, and fewer claims for the same work. Their leases, the hand-back at a
 * stop and a reclaim while buffered are in claim-ahead-leases.test.ts; the kill -9 case is in
 * multiprocess.test.ts.
 */
import { expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { forEachBackend } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait.js';
import { deferred, trackRunners } from './processing-support.js';

forEachBackend('claiming ahead', (ctx) => {
  const track = trackRunners();

  const add = (count: number, extra: object = {}) =>
    ctx.queue.addJobs(Array.from({ length: count }, (_, n) => ({ jobType: 'work', payload: { n }, ...extra })));

  it('rejects a claimAhead that is not an integer from 0 to 10000, at createProcessor', () => {
    for (const value of [-1, 1.5, Number.NaN, '2', null, 10_001]) {
      expect(() => ctx.queue.createProcessor({}, { claimAhead: value as number }), String(value)).toThrow(ConfigError);
      expect(() => ctx.queue.createProcessor({}, { claimAhead: value as number })).toThrow(
        /`claimAhead`.*integer between 0 and 10000/,
      );
    }
    expect(ctx.queue.createProcessor({}, { claimAhead: 0 }).stats().claimedAhead).toBe(0);
  });

  it('holds claimed-ahead jobs locked to the worker and runs each exactly once, in claim order', async () => {
    const ids = await add(6);
    const gate = deferred();
    const ran: number[] = [];
    const processor = track(
      ctx.queue.createProcessor(
        {
          work: async (p: { n: number }) => {
            ran.push(p.n);
            if (p.n === 0) await gate.promise;
          },
        },
        { workerId: 'ahead', concurrency: 1, batchSize: 5, claimAhead: 4, pollInterval: 100 },
      ),
    );
    processor.startInBackground();
    await waitFor(() => processor.stats().claimedAhead === 4, { what: '4 jobs claimed ahead' });
    const processing = await ctx.queue.getJobsByStatus('processing');
    expect(processing.map((j) => j.id).sort((a, b) => a - b)).toEqual(ids.slice(0, 5));
    expect(processing.every((j) => j.lockedBy === 'ahead')).toBe(true);
    gate.resolve();
    await waitFor(async () => (await ctx.queue.getJobsByStatus('completed')).length === 6, { what: '6 jobs' });
    expect(ran).toEqual([0, 1, 2, 3, 4, 5]);
    await processor.stopAndDrain();
  });

  it('claimed-ahead jobs count towards the group limit', async () => {
    await add(5, { group: { id: 'g' } });
    const gate = deferred();
    const processor = track(
      ctx.queue.createProcessor(
        { work: () => gate.promise },
        { concurrency: 1, batchSize: 5, claimAhead: 4, groupConcurrency: 1, pollInterval: 100 },
      ),
    );
    processor.startInBackground();
    await waitFor(() => processor.stats().slotsInUse === 1, { what: 'the first job to start' });
    // A second processor finds the group full: the first one holds its only slot.
    const other = ctx.queue.createProcessor({ work: async () => {} }, { groupConcurrency: 1, batchSize: 5 });
    expect(await other.start()).toBe(0);
    expect(processor.stats().claimedAhead).toBe(0);
    expect(await ctx.queue.getJobsByStatus('processing')).toHaveLength(1);
    gate.resolve();
    await waitFor(async () => (await ctx.queue.getJobsByStatus('completed')).length === 5, { what: '5 jobs' });
    await processor.stopAndDrain();
  });

  it('a claimed-ahead job runs before a higher-priority job added after its claim', async () => {
    await add(3);
    const gate = deferred();
    const ran: number[] = [];
    const processor = track(
      ctx.queue.createProcessor(
        {
          work: async (p: { n: number }) => {
            ran.push(p.n);
            if (p.n === 0) await gate.promise;
          },
        },
        { concurrency: 1, batchSize: 3, claimAhead: 2, pollInterval: 100 },
      ),
    );
    processor.startInBackground();
    await waitFor(() => processor.stats().claimedAhead === 2, { what: '2 jobs claimed ahead' });
    await ctx.queue.addJob({ jobType: 'work', payload: { n: 99 }, priority: 10 });
    gate.resolve();
    await waitFor(() => ran.length === 4, { what: '4 runs' });
    expect(ran).toEqual([0, 1, 2, 99]);
    await processor.stopAndDrain();
  });
});
