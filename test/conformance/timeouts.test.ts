/**
 * Handler timeouts (SPEC §4.6 timeout rules, DETAILS "Handler context"): the abort signal, the
 * `timeout` failure, ctx.prolong and ctx.onTimeout, and the `prolonged` events they record.
 */
import { expect, it } from 'vitest';
import { JobTimeoutError } from '../../src/errors.js';
import type { JobContext } from '../../src/handler-context.js';
import { forEachBackend } from '../helpers/backends.js';
import { sleep } from '../helpers/wait.js';

/** Resolves when the signal aborts, with its reason. */
const aborted = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));

forEachBackend('timeouts (§4.6)', (ctx) => {
  it('aborts the signal with a JobTimeoutError and fails the job with reason timeout', async () => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {}, timeoutMs: 100, maxAttempts: 1 });
    let reason: unknown;
    const failures: Error[] = [];
    ctx.queue.on('job:failed', (e) => failures.push(e.error));
    const t0 = Date.now();
    await ctx.queue
      .createProcessor({
        work: async (_p: unknown, signal: AbortSignal) => {
          reason = await aborted(signal);
        },
      })
      .start();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(95);
    expect(reason).toBeInstanceOf(JobTimeoutError);
    expect(failures[0]).toBe(reason);
    const job = await ctx.queue.getJob(id);
    expect(job).toMatchObject({ status: 'failed', failureReason: 'timeout' });
    expect(job?.errorHistory[0]?.message).toContain('timed out after 100 ms');
  });

  it('fails at the deadline even when the handler ignores the signal, and discards its late result', async () => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {}, timeoutMs: 50, maxAttempts: 1 });
    const t0 = Date.now();
    await ctx.queue.createProcessor({ work: async () => (await sleep(400), 'late') }).start();
    expect(Date.now() - t0).toBeLessThan(350);
    await sleep(450);
    const job = await ctx.queue.getJob(id);
    expect(job).toMatchObject({ status: 'failed', failureReason: 'timeout', output: null });
  });

  it('runs without a deadline when the job has no timeoutMs', async () => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {} });
    await ctx.queue.createProcessor({ work: async () => (await sleep(150), 'done') }).start();
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'completed', output: 'done' });
  });

  it('ctx.prolong(ms) moves the deadline to ms from now and records a prolonged event', async () => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {}, timeoutMs: 150, maxAttempts: 1 });
    await ctx.queue
      .createProcessor({
        work: async (_p: unknown, signal: AbortSignal, c: JobContext) => {
          await sleep(100);
          c.prolong(400);
          await sleep(200); // 300 ms in total: past the original 150 ms deadline
          return signal.aborted ? 'aborted' : 'finished';
        },
      })
      .start();
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'completed', output: 'finished' });
    const prolonged = (await ctx.queue.getJobEvents(id)).filter((e) => e.eventType === 'prolonged');
    expect(prolonged.map((e) => e.metadata)).toEqual([{ timeoutMs: 400 }]);
  });

  it('ctx.prolong() without an argument resets the deadline to the job timeoutMs and refreshes the lock', async () => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {}, timeoutMs: 200, maxAttempts: 1 });
    let lockedAtClaim: number | undefined;
    let lockedAtEnd: number | undefined;
    await ctx.queue
      .createProcessor({
        work: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
          lockedAtClaim = (await ctx.queue.getJob(id))?.lockedAt?.getTime();
          for (let i = 0; i < 3; i++) {
            await sleep(120);
            c.prolong();
          }
          await sleep(50);
          lockedAtEnd = (await ctx.queue.getJob(id))?.lockedAt?.getTime();
          return 'finished';
        },
      })
      .start();
    const job = await ctx.queue.getJob(id);
    expect(job).toMatchObject({ status: 'completed', output: 'finished' });
    const prolonged = (await ctx.queue.getJobEvents(id)).filter((e) => e.eventType === 'prolonged');
    expect(prolonged.map((e) => e.metadata)).toEqual([{ timeoutMs: 200 }, { timeoutMs: 200 }, { timeoutMs: 200 }]);
    // The lock time moved with each prolong: a heartbeat against reclaim.
    expect(lockedAtEnd).toBeGreaterThanOrEqual(lockedAtClaim! + 300);
    expect(lockedAtEnd).toBe(prolonged[2]!.createdAt.getTime());
  });

  it('ctx.prolong() on a job without timeoutMs is a heartbeat: no deadline, a prolonged event, a fresh lock', async () => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {} });
    let lockedAtClaim: number | undefined;
    let lockedAfter: number | undefined;
    await ctx.queue
      .createProcessor({
        work: async (_p: unknown, signal: AbortSignal, c: JobContext) => {
          lockedAtClaim = (await ctx.queue.getJob(id))?.lockedAt?.getTime();
          await sleep(30);
          c.prolong();
          await sleep(100);
          lockedAfter = (await ctx.queue.getJob(id))?.lockedAt?.getTime();
          return signal.aborted ? 'aborted' : 'finished';
        },
      })
      .start();
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'completed', output: 'finished' });
    const prolonged = (await ctx.queue.getJobEvents(id)).filter((e) => e.eventType === 'prolonged');
    expect(prolonged.map((e) => e.metadata)).toEqual([{ timeoutMs: null }]);
    expect(lockedAfter).toBeGreaterThan(lockedAtClaim!);
  });

  it('ctx.onTimeout runs before the abort; a returned number extends the deadline', async () => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {}, timeoutMs: 100, maxAttempts: 1 });
    const seen: boolean[] = [];
    await ctx.queue
      .createProcessor({
        work: async (_p: unknown, signal: AbortSignal, c: JobContext) => {
          c.onTimeout(() => {
            seen.push(signal.aborted);
            return 300;
          });
          await sleep(250);
          return signal.aborted ? 'aborted' : 'finished';
        },
      })
      .start();
    expect(seen).toEqual([false]);
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'completed', output: 'finished' });
    const prolonged = (await ctx.queue.getJobEvents(id)).filter((e) => e.eventType === 'prolonged');
    expect(prolonged.map((e) => e.metadata)).toEqual([{ timeoutMs: 300 }]);
  });

  it('ctx.onTimeout may run several times; returning nothing lets the timeout proceed', async () => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {}, timeoutMs: 60, maxAttempts: 1 });
    const calls: number[] = [];
    const t0 = Date.now();
    await ctx.queue
      .createProcessor({
        work: async (_p: unknown, signal: AbortSignal, c: JobContext) => {
          c.onTimeout(() => {
            calls.push(Date.now() - t0);
            return calls.length < 3 ? 60 : undefined;
          });
          await aborted(signal);
        },
      })
      .start();
    expect(calls).toHaveLength(3);
    expect(calls[2]).toBeGreaterThanOrEqual(170);
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'failed', failureReason: 'timeout' });
  });

  it('treats a throwing onTimeout callback as no extension and reports its error', async () => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {}, timeoutMs: 50, maxAttempts: 1 });
    const errors: Error[] = [];
    await ctx.queue
      .createProcessor(
        {
          work: async (_p: unknown, signal: AbortSignal, c: JobContext) => {
            c.onTimeout(() => {
              throw new Error('callback bug');
            });
            await aborted(signal);
          },
        },
        { onError: (e) => errors.push(e) },
      )
      .start();
    expect(errors.map((e) => e.message)).toEqual(['callback bug']);
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'failed', failureReason: 'timeout' });
  });

  it('records a result that arrives after the deadline as a timeout, when the handler blocked the event loop', async () => {
    const sync = await ctx.queue.addJob({ jobType: 'sync', payload: {}, timeoutMs: 100, maxAttempts: 1 });
    const async_ = await ctx.queue.addJob({ jobType: 'async', payload: {}, timeoutMs: 100, maxAttempts: 1 });
    const block = (ms: number) => {
      const end = Date.now() + ms;
      while (Date.now() < end) {
        // blocks the event loop: the deadline's timer cannot fire
      }
    };
    const failures: Error[] = [];
    ctx.queue.on('job:failed', (e) => failures.push(e.error));
    await ctx.queue
      .createProcessor(
        {
          sync: () => (block(400), 'too late'),
          async: async () => {
            await sleep(10);
            block(400);
            return 'too late';
          },
        },
        { concurrency: 1 },
      )
      .start();
    for (const id of [sync, async_]) {
      const job = await ctx.queue.getJob(id);
      expect(job).toMatchObject({ status: 'failed', failureReason: 'timeout', output: null });
      expect(job?.errorHistory[0]?.message).toContain('timed out after 100 ms');
    }
    expect(failures.every((e) => e instanceof JobTimeoutError)).toBe(true);
  });
});
