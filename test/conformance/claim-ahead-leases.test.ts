/**
 * The leases of claimed-ahead jobs (docs/processing.md#claiming-ahead): a job waiting in a
 * processor's buffer keeps its lease, so the supervisor's reclaim passes over it however long it
 * waits, and it runs once; a graceful stop (stop(), stopAndDrain(), queue.close()) hands the jobs
 * still buffered back to pending at once, without using an attempt, with a `released` event, and
 * starts none of them; the hand-back and the renewal touch only jobs still locked by the worker.
 * The same with processors in child processes is in multiprocess.test.ts.
 */
import { expect, it } from 'vitest';
import { backendOf } from '../../src/queue.js';
import { ManualClock, forEachBackend } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait.js';
import { deferred, trackRunners } from './processing-support.js';

forEachBackend('claimed-ahead leases', (ctx) => {
  const track = trackRunners();

  /**
   * One slot, three jobs claimed ahead of it; job 0 runs until `gate` opens. Tracked (stopped
   * after the test) unless `tracked` is false.
   */
  function blockingProcessor(queue = ctx.queue, options: object = {}, tracked = true) {
    const gate = deferred();
    const runs = new Map<number, number>();
    const processor = (tracked ? track : <T>(p: T) => p)(
      queue.createProcessor(
        {
          work: async (p: { n: number }) => {
            runs.set(p.n, (runs.get(p.n) ?? 0) + 1);
            if (p.n === 0) await gate.promise;
          },
        },
        { workerId: 'ahead', concurrency: 1, batchSize: 4, claimAhead: 3, pollInterval: 100, ...options },
      ),
    );
    return { processor, gate, runs };
  }

  const add = (queue = ctx.queue, extra: object = {}) =>
    queue.addJobs([0, 1, 2, 3].map((n) => ({ jobType: 'work', payload: { n }, ...extra })));

  it('keeps the lease of a job waiting in the buffer: the reclaim passes over it, and it runs once', async () => {
    const clock = new ManualClock();
    const queue = ctx.makeQueue({ clock });
    // One attempt each: a buffered job the reclaim took would fail without ever running.
    const ids = await add(queue, { maxAttempts: 1 });
    const { processor, gate, runs } = blockingProcessor(queue, { leaseCheckInterval: 50 });
    processor.startInBackground();
    await waitFor(() => processor.stats().claimedAhead === 3, { what: '3 jobs claimed ahead' });
    const claimedAt = (await queue.getJob(ids[1]!))!.lockedAt!.getTime();

    // Ten minutes pass while job 0 runs and the others wait: each buffered lease is renewed.
    clock.advance(10 * 60_000);
    await waitFor(
      async () => {
        const buffered = await Promise.all(ids.slice(1).map((id) => queue.getJob(id)));
        return buffered.every((j) => j!.lockedAt!.getTime() > claimedAt);
      },
      { what: 'the leases of the buffered jobs to be renewed' },
    );
    // Only the running job is stuck at a 5-minute threshold; the others then run as it is given up.
    expect((await queue.createSupervisor({ stuckJobsTimeoutMinutes: 5 }).start()).reclaimedJobs).toBe(1);

    gate.resolve();
    await waitFor(async () => (await queue.getJobsByStatus('completed')).length === 3, { what: '3 completed jobs' });
    for (const n of [1, 2, 3]) expect(runs.get(n), `runs of job ${n}`).toBe(1);
    for (const id of ids.slice(1)) expect(await queue.getJob(id)).toMatchObject({ status: 'completed', attempts: 1 });
    expect(await queue.getJob(ids[0]!)).toMatchObject({ status: 'failed', failureReason: 'timeout' });
    await processor.stopAndDrain();
  });

  it('stop() hands the jobs still claimed ahead back to pending without using an attempt, and starts none', async () => {
    const ids = await add();
    const { processor, gate, runs } = blockingProcessor();
    processor.startInBackground();
    await waitFor(() => processor.stats().claimedAhead === 3, { what: '3 jobs claimed ahead' });
    processor.stop();
    expect(processor.stats().claimedAhead).toBe(0);
    // No supervisor runs here: what puts them back is the stop, not a reclaim.
    await waitFor(async () => (await ctx.queue.getJobsByStatus('pending')).length === 3, {
      what: 'the 3 buffered jobs back to pending',
    });
    for (const id of ids.slice(1)) {
      expect(await ctx.queue.getJob(id)).toMatchObject({ lockedBy: null, lockedAt: null, pendingReason: 'released' });
      const events = (await ctx.queue.getJobEvents(id)).map((e) => e.eventType);
      expect(events).toEqual(['added', 'processing', 'released']);
    }

    gate.resolve();
    await waitFor(async () => (await ctx.queue.getJob(ids[0]!))?.status === 'completed', { what: 'job 0' });
    await processor.stopAndDrain();
    expect([...runs.keys()]).toEqual([0]);

    // Their next claim uses no attempt: each runs on its first.
    const other = ctx.queue.createProcessor({ work: async () => {} }, { workerId: 'other', batchSize: 10 });
    expect(await other.start()).toBe(3);
    for (const id of ids) expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'completed', attempts: 1 });
  });

  it('stopAndDrain hands the buffered jobs back at once and waits for the running one', async () => {
    const ids = await add();
    const { processor, gate, runs } = blockingProcessor();
    processor.startInBackground();
    await waitFor(() => processor.stats().claimedAhead === 3, { what: '3 jobs claimed ahead' });
    const drained = processor.stopAndDrain(10_000);
    await waitFor(async () => (await ctx.queue.getJobsByStatus('pending')).length === 3, {
      what: 'the 3 buffered jobs back to pending while job 0 runs',
    });
    gate.resolve();
    await drained;
    expect([...runs.keys()]).toEqual([0]);
    expect(await ctx.queue.getJob(ids[0]!)).toMatchObject({ status: 'completed', attempts: 1 });
    expect(await ctx.queue.getJobsByStatus('processing')).toHaveLength(0);
  });

  it('queue.close({ timeoutMs }) hands the buffered jobs back before the connections close', async () => {
    const queue = ctx.makeQueue();
    const ids = await add(queue);
    // Stopped by the close; job 0 never returns, so no outcome is written to the closed queue.
    const { processor, runs } = blockingProcessor(queue, {}, false);
    processor.startInBackground();
    await waitFor(() => processor.stats().claimedAhead === 3, { what: '3 jobs claimed ahead' });
    // Job 0 outlasts the timeout: it stays processing, left to the reclaim, as documented.
    await queue.close({ timeoutMs: 200 });
    for (const id of ids.slice(1)) {
      expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'pending', pendingReason: 'released' });
    }
    expect(await ctx.queue.getJob(ids[0]!)).toMatchObject({ status: 'processing', lockedBy: 'ahead' });
    expect([...runs.keys()]).toEqual([0]);
    expect(processor.isRunning()).toBe(false);
  });

  it('a job reclaimed while claimed ahead does not run in the processor that buffered it', async () => {
    // A processor whose leases lag a minute behind, as those of a stalled process would.
    const stalled = ctx.makeQueue({ clock: new ManualClock(Date.now() - 60_000) });
    await add(stalled);
    const { processor, gate, runs } = blockingProcessor(stalled);
    processor.startInBackground();
    await waitFor(() => processor.stats().claimedAhead === 3, { what: '3 jobs claimed ahead' });
    // Threshold 0: everything processing counts as stuck, the buffered jobs too.
    expect((await ctx.queue.createSupervisor({ stuckJobsTimeoutMinutes: 0 }).start()).reclaimedJobs).toBe(4);
    const rescued = new Map<number, number>();
    const rescuer = ctx.queue.createProcessor(
      { work: async (p: { n: number }) => void rescued.set(p.n, (rescued.get(p.n) ?? 0) + 1) },
      { workerId: 'rescuer', batchSize: 10 },
    );
    // The first processor's buffer is full: it claims nothing before its next renewal.
    expect(await rescuer.start()).toBe(4);
    // That renewal (within a second) finds the buffered jobs gone and drops them.
    await waitFor(() => processor.stats().claimedAhead === 0, { what: 'the buffer to drop the reclaimed jobs' });
    gate.resolve();
    await waitFor(() => processor.stats().slotsInUse === 0, { what: 'job 0 to end here' });
    expect([...runs.keys()]).toEqual([0]);
    expect([...rescued.entries()].sort((a, b) => a[0] - b[0])).toEqual([0, 1, 2, 3].map((n) => [n, 1]));
    await processor.stopAndDrain();
  });

  it('the hand-back and the renewal leave a job alone once another worker holds it', async () => {
    const backend = backendOf(ctx.queue);
    const ids = await add();
    const now = () => new Date();
    expect(await backend.claimJobs({ workerId: 'a', batchSize: 4, now: now() })).toHaveLength(4);
    expect((await ctx.queue.createSupervisor({ stuckJobsTimeoutMinutes: 0 }).start()).reclaimedJobs).toBe(4);
    expect(await backend.claimJobs({ workerId: 'b', batchSize: 2, now: now() })).toHaveLength(2);

    // Two jobs are b's, two are pending: worker a holds none of them.
    expect(await backend.renewLeases({ workerId: 'a', jobIds: ids, now: now() })).toEqual([]);
    expect(await backend.releaseJobs({ workerId: 'a', jobIds: ids, now: now() })).toEqual([]);
    const processing = await ctx.queue.getJobsByStatus('processing');
    expect(processing.map((j) => j.lockedBy)).toEqual(['b', 'b']);
    for (const id of ids) expect((await ctx.queue.getJobEvents(id)).map((e) => e.eventType)).not.toContain('released');

    const held = processing.map((j) => j.id).sort((x, y) => x - y);
    expect((await backend.renewLeases({ workerId: 'b', jobIds: ids, now: now() })).sort((x, y) => x - y)).toEqual(held);
    expect((await backend.releaseJobs({ workerId: 'b', jobIds: ids, now: now() })).sort((x, y) => x - y)).toEqual(held);
    expect(await ctx.queue.getJobsByStatus('pending')).toHaveLength(4);
  });
});
