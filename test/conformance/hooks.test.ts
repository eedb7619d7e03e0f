/**
 * Real-time hooks (SPEC §4.10, §6.2): job:added, job:cancelled, job:retried; on / once / off /
 * removeAllListeners; synchronous emission after storage; listener errors reported as `error`.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { batchDepRef } from '../../src/queue.js';
import type { JobRecord } from '../../src/types.js';
import { ManualClock, forEachBackend } from '../helpers/backends.js';
import { claimJob, failJob } from './job-states.js';

forEachBackend('hooks (§4.10, §6.2)', (ctx) => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('emits job:added { jobId, jobType } once per inserted job, in input order', async () => {
    const seen: unknown[] = [];
    ctx.queue.on('job:added', (payload) => seen.push(payload));
    const single = await ctx.queue.addJob({ jobType: 'email', payload: {} });
    const batch = await ctx.queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {} },
      { jobType: 'c', payload: {} },
    ]);
    expect(seen).toEqual([
      { jobId: single, jobType: 'email' },
      { jobId: batch[0], jobType: 'a' },
      { jobId: batch[1], jobType: 'b' },
      { jobId: batch[2], jobType: 'c' },
    ]);
  });

  it('does not emit job:added for an idempotent duplicate', async () => {
    const existing = await ctx.queue.addJob({ jobType: 'email', payload: {}, idempotencyKey: 'k' });
    const seen: unknown[] = [];
    ctx.queue.on('job:added', (payload) => seen.push(payload));
    expect(await ctx.queue.addJob({ jobType: 'email', payload: {}, idempotencyKey: 'k' })).toBe(existing);
    const batch = await ctx.queue.addJobs([
      { jobType: 'x', payload: {}, idempotencyKey: 'k' },
      { jobType: 'y', payload: {}, idempotencyKey: 'fresh' },
      { jobType: 'z', payload: {}, idempotencyKey: 'fresh' },
    ]);
    expect(batch[0]).toBe(existing);
    expect(seen).toEqual([{ jobId: batch[1], jobType: 'y' }]);
  });

  it('emits job:cancelled { jobId } for cancelJob, only when the status changed', async () => {
    const seen: unknown[] = [];
    ctx.queue.on('job:cancelled', (payload) => seen.push(payload));
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {} });
    await ctx.queue.cancelJob(id);
    await ctx.queue.cancelJob(id);
    await ctx.queue.cancelJob(987_654);
    expect(seen).toEqual([{ jobId: id }]);
  });

  it('emits job:cancelled for each job cancelled by cancelAllUpcomingJobs', async () => {
    const seen: number[] = [];
    ctx.queue.on('job:cancelled', ({ jobId }) => seen.push(jobId));
    const added = await ctx.queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {} },
      { jobType: 'a', payload: {} },
    ]);
    expect(await ctx.queue.cancelAllUpcomingJobs({ jobType: 'a' })).toBe(2);
    expect([...seen].sort((x, y) => x - y)).toEqual([added[0], added[2]]);
  });

  it('emits job:retried { jobId } only when the status changed', async () => {
    const seen: unknown[] = [];
    ctx.queue.on('job:retried', (payload) => seen.push(payload));
    const [cancelled, pending, broken] = await ctx.queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'a', payload: {} },
      { jobType: 'broken', payload: {} },
    ]);
    await ctx.queue.cancelJob(cancelled!);
    await failJob(ctx.queue, broken!);
    await ctx.queue.retryJob(pending!);
    await ctx.queue.retryJob(cancelled!);
    await ctx.queue.retryJob(cancelled!); // now pending: no change
    await ctx.queue.retryJob(broken!);
    await ctx.queue.retryJob(987_654);
    expect(seen).toEqual([{ jobId: cancelled }, { jobId: broken }]);
  });

  it('on fires on every emission; once only on the first', async () => {
    const every: number[] = [];
    const first: number[] = [];
    ctx.queue.on('job:added', ({ jobId }) => every.push(jobId));
    ctx.queue.once('job:added', ({ jobId }) => first.push(jobId));
    const a = await ctx.queue.addJob({ jobType: 'x', payload: {} });
    const b = await ctx.queue.addJob({ jobType: 'x', payload: {} });
    const [c, d] = await ctx.queue.addJobs([
      { jobType: 'x', payload: {} },
      { jobType: 'x', payload: {} },
    ]);
    expect(every).toEqual([a, b, c, d]);
    expect(first).toEqual([a]);
  });

  it('once fires on the first emission inside a batch only', async () => {
    const first: number[] = [];
    ctx.queue.once('job:added', ({ jobId }) => first.push(jobId));
    const batch = await ctx.queue.addJobs([
      { jobType: 'x', payload: {} },
      { jobType: 'x', payload: {} },
    ]);
    expect(first).toEqual([batch[0]]);
  });

  it('off removes the listener with the same reference only', async () => {
    const removed = vi.fn();
    const kept = vi.fn();
    ctx.queue.on('job:added', removed);
    ctx.queue.on('job:added', kept);
    ctx.queue.off('job:added', () => undefined); // another function: removes nothing
    ctx.queue.off('job:added', removed);
    await ctx.queue.addJob({ jobType: 'x', payload: {} });
    expect(removed).not.toHaveBeenCalled();
    expect(kept).toHaveBeenCalledTimes(1);
  });

  it('off removes a once listener before it fires', async () => {
    const listener = vi.fn();
    ctx.queue.once('job:added', listener);
    ctx.queue.off('job:added', listener);
    await ctx.queue.addJob({ jobType: 'x', payload: {} });
    expect(listener).not.toHaveBeenCalled();
  });

  it('removeAllListeners(name) removes the listeners of that event only', async () => {
    const added = vi.fn();
    const cancelled = vi.fn();
    ctx.queue.on('job:added', added);
    ctx.queue.once('job:added', added);
    ctx.queue.on('job:cancelled', cancelled);
    ctx.queue.removeAllListeners('job:added');
    const id = await ctx.queue.addJob({ jobType: 'x', payload: {} });
    await ctx.queue.cancelJob(id);
    expect(added).not.toHaveBeenCalled();
    expect(cancelled).toHaveBeenCalledWith({ jobId: id });
  });

  it('removeAllListeners() removes the listeners of every event', async () => {
    const listener = vi.fn();
    ctx.queue.on('job:added', listener);
    ctx.queue.on('job:cancelled', listener);
    ctx.queue.on('job:retried', listener);
    ctx.queue.on('error', listener);
    ctx.queue.removeAllListeners();
    const id = await ctx.queue.addJob({ jobType: 'x', payload: {} });
    await ctx.queue.cancelJob(id);
    await ctx.queue.retryJob(id);
    expect(listener).not.toHaveBeenCalled();
  });

  it('emits synchronously, before the operation resolves, after the job is stored', async () => {
    const order: string[] = [];
    let readInside: Promise<JobRecord | null> | undefined;
    ctx.queue.on('job:added', ({ jobId }) => {
      order.push(`added ${jobId}`);
      readInside = ctx.queue.getJob(jobId);
    });
    const id = await ctx.queue.addJob({ jobType: 'x', payload: { v: 1 } });
    order.push('resolved');
    expect(order).toEqual([`added ${id}`, 'resolved']);
    expect(await readInside).toMatchObject({ id, status: 'pending', payload: { v: 1 } });
  });

  it('shows the cancelled status to a job:cancelled listener', async () => {
    const id = await ctx.queue.addJob({ jobType: 'x', payload: {} });
    let readInside: Promise<JobRecord | null> | undefined;
    ctx.queue.on('job:cancelled', ({ jobId }) => {
      readInside = ctx.queue.getJob(jobId);
    });
    await ctx.queue.cancelJob(id);
    expect(await readInside).toMatchObject({ id, status: 'cancelled' });
  });

  it('a slow listener delays the calling operation', async () => {
    ctx.queue.on('job:added', () => {
      const until = Date.now() + 150;
      while (Date.now() < until) {
        // Busy wait: a synchronous listener holds the operation.
      }
    });
    const started = Date.now();
    await ctx.queue.addJob({ jobType: 'x', payload: {} });
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  });

  it('a throwing listener does not make addJob reject; its error is emitted as `error`', async () => {
    const errors: Error[] = [];
    const later = vi.fn();
    ctx.queue.on('error', (err) => errors.push(err));
    const thrown = new Error('listener broke');
    ctx.queue.on('job:added', () => {
      throw thrown;
    });
    ctx.queue.on('job:added', later);
    const id = await ctx.queue.addJob({ jobType: 'x', payload: {} });
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'pending' });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(Error);
    expect(errors[0]!.message).toContain('job:added');
    expect(errors[0]!.message).toContain('listener broke');
    expect(errors[0]!.cause).toBe(thrown);
    // The other listeners still run.
    expect(later).toHaveBeenCalledWith({ jobId: id, jobType: 'x' });
  });

  it('a listener throwing a non-Error is reported as an Error', async () => {
    const errors: Error[] = [];
    ctx.queue.on('error', (err) => errors.push(err));
    ctx.queue.on('job:cancelled', () => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- a listener throwing a non-Error is the case under test
      throw 'plain string';
    });
    const id = await ctx.queue.addJob({ jobType: 'x', payload: {} });
    await expect(ctx.queue.cancelJob(id)).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(Error);
    expect(errors[0]!.message).toContain('plain string');
    expect((await ctx.queue.getJob(id))?.status).toBe('cancelled');
  });

  it('an error with no error listener does not throw', async () => {
    ctx.queue.on('job:added', () => {
      throw new Error('nobody listens');
    });
    const id = await ctx.queue.addJob({ jobType: 'x', payload: {} });
    expect(await ctx.queue.getJob(id)).toMatchObject({ id, status: 'pending' });
  });

  it('a throwing error listener is written to the console, not rethrown', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    ctx.queue.on('error', () => {
      throw new Error('error listener broke');
    });
    ctx.queue.on('job:added', () => {
      throw new Error('first');
    });
    const id = await ctx.queue.addJob({ jobType: 'x', payload: {} });
    expect(await ctx.queue.getJob(id)).not.toBeNull();
    expect(consoleError).toHaveBeenCalledTimes(1);
  });

  // Reclaim runs from the queue and from the supervisor: both report the cascade alike.
  for (const via of ['queue.reclaimStuckJobs', 'the supervisor'] as const) {
    it(`emits job:cancelled for the dependents of a job that ${via} fails for lack of attempts`, async () => {
      const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
      const queue = ctx.makeQueue({ clock });
      const [root, child, grandchild] = await queue.addJobs([
        { jobType: 'stuck', payload: {}, maxAttempts: 1 },
        { jobType: 'child', payload: {}, dependsOn: { jobIds: [batchDepRef(0)] } },
        { jobType: 'grandchild', payload: {}, dependsOn: { jobIds: [batchDepRef(1)] } },
      ]);
      await claimJob(queue, root!);
      const cancelled: number[] = [];
      queue.on('job:cancelled', ({ jobId }) => cancelled.push(jobId));
      clock.advance(11 * 60_000);
      const reclaimed =
        via === 'the supervisor'
          ? (await queue.createSupervisor({ stuckJobsTimeoutMinutes: 10 }).start()).reclaimedJobs
          : await queue.reclaimStuckJobs(10);
      expect(reclaimed).toBe(1);
      expect((await queue.getJob(root!))?.status).toBe('failed');
      expect(cancelled.sort((m, n) => m - n)).toEqual([child, grandchild]);
    });
  }

  it('rejects a listener that is not a function', () => {
    expect(() => ctx.queue.on('job:added', 'nope' as never)).toThrow(TypeError);
  });
});
