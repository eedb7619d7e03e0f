/**
 * Forced termination (SPEC §4.7): `forceKillOnTimeout` handlers run in a worker thread that is
 * terminated at the timeout; they must be serializable.
 *
 * Handlers here are written without `import()`: the test runner rewrites `import()` in test
 * files into a helper a worker thread does not have. Application code is not rewritten.
 */
import { expect, it } from 'vitest';
import { forcedWorkerEvents } from '../../src/forced-timeout/worker-runner.js';
import type { JobContext } from '../../src/handler-context.js';
import { forEachBackend } from '../helpers/backends.js';
import { sleep, waitFor } from '../helpers/wait.js';

const captured = { apiKey: 'secret' };

forEachBackend('forced termination (§4.7)', (ctx) => {
  it('terminates a busy-looping handler at the timeout: the thread exits and stops using CPU', async () => {
    const id = await ctx.queue.addJob({
      jobType: 'spin',
      payload: {},
      timeoutMs: 300,
      forceKillOnTimeout: true,
      maxAttempts: 1,
    });
    const started: number[] = [];
    const exited: number[] = [];
    const onStart = (t: number) => started.push(t);
    const onExit = (t: number) => exited.push(t);
    forcedWorkerEvents.on('start', onStart);
    forcedWorkerEvents.on('exit', onExit);
    try {
      const t0 = Date.now();
      await ctx.queue
        .createProcessor({
          spin: () => {
            for (;;) {
              // a synchronous loop no AbortSignal can stop
            }
          },
        })
        .start();
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'failed', failureReason: 'timeout' });
      expect(started).toHaveLength(1);
      await waitFor(() => exited.includes(started[0]!), { timeoutMs: 5000, what: 'the worker thread to exit' });
      // A spinning thread would burn a whole core; a terminated one burns nothing.
      const before = process.cpuUsage();
      await sleep(500);
      const used = process.cpuUsage(before);
      expect((used.user + used.system) / 1000).toBeLessThan(250);
    } finally {
      forcedWorkerEvents.off('start', onStart);
      forcedWorkerEvents.off('exit', onExit);
    }
  });

  it('stores the return value, relays setProgress (a fraction is stored rounded) and setOutput, and passes the payload', async () => {
    const a = await ctx.queue.addJob({
      jobType: 'sum',
      payload: { values: [1, 2, 3] },
      timeoutMs: 5000,
      forceKillOnTimeout: true,
    });
    const b = await ctx.queue.addJob({ jobType: 'report', payload: {}, forceKillOnTimeout: true });
    const progress: unknown[] = [];
    ctx.queue.on('job:progress', (e) => progress.push(e));
    await ctx.queue
      .createProcessor({
        sum: async (payload: { values: number[] }, _signal: AbortSignal, c: JobContext) => {
          await c.setProgress(49.6); // stored rounded, like any progress
          // eslint-disable-next-line @typescript-eslint/no-require-imports -- the handler runs from its source text in a worker thread, where the test runner's `import()` rewrite does not exist (see the file comment)
          const { isMainThread } = require('node:worker_threads') as typeof import('node:worker_threads');
          return { total: payload.values.reduce((x, y) => x + y, 0), isMainThread };
        },
        report: async (_payload: unknown, _signal: AbortSignal, c: JobContext) => {
          await c.setOutput({ pages: 2 });
          return 'ignored';
        },
      })
      .start();
    expect(await ctx.queue.getJob(a)).toMatchObject({ status: 'completed', output: { total: 6, isMainThread: false } });
    // The relayed progress is written before the completion, which would fence it off.
    expect((await ctx.queue.getJob(a))?.progress).toBe(50);
    expect(progress).toEqual([{ jobId: a, progress: 50 }]);
    expect(await ctx.queue.getJob(b)).toMatchObject({ status: 'completed', output: { pages: 2 } });
  });

  it('fails with handler_error and the message when the handler throws in the thread', async () => {
    const id = await ctx.queue.addJob({ jobType: 'bad', payload: {}, forceKillOnTimeout: true, maxAttempts: 1 });
    await ctx.queue
      .createProcessor({
        bad: async () => {
          throw new TypeError('bad input');
        },
      })
      .start();
    const job = await ctx.queue.getJob(id);
    expect(job).toMatchObject({ status: 'failed', failureReason: 'handler_error' });
    expect(job?.errorHistory[0]?.message).toBe('bad input');
  });

  it('fails a job whose handler is not serializable, stating why', async () => {
    const id = await ctx.queue.addJob({ jobType: 'leaky', payload: {}, forceKillOnTimeout: true, maxAttempts: 1 });
    let ran = false;
    await ctx.queue.createProcessor({ leaky: async () => ((ran = true), captured.apiKey) }).start();
    const job = await ctx.queue.getJob(id);
    expect(ran).toBe(false);
    expect(job).toMatchObject({ status: 'failed', failureReason: 'handler_error' });
    expect(job?.errorHistory[0]?.message).toContain('cannot run with forceKillOnTimeout');
    expect(job?.errorHistory[0]?.message).toContain('`captured`');
    expect(job?.errorHistory[0]?.message).toContain('`ran`');
  });

  it('runs a handler holding regular expression literals; fails one capturing a variable in a default parameter', async () => {
    const ok = await ctx.queue.addJob({
      jobType: 'words',
      payload: { text: "it's a 'quoted' /path/" },
      forceKillOnTimeout: true,
    });
    const bad = await ctx.queue.addJob({ jobType: 'defaults', payload: {}, forceKillOnTimeout: true, maxAttempts: 1 });
    await ctx.queue
      .createProcessor({
        words: async (payload: { text: string }) => {
          if (payload.text) /x/.test(payload.text);
          return payload.text.replace(/'/g, '"').split(/[/ ]/).filter(Boolean);
        },
        defaults: async (_payload: unknown, _signal: AbortSignal, _ctx: JobContext, key = captured.apiKey) => key,
      })
      .start();
    expect(await ctx.queue.getJob(ok)).toMatchObject({
      status: 'completed',
      output: ['it"s', 'a', '"quoted"', 'path'],
    });
    const failed = await ctx.queue.getJob(bad);
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'handler_error' });
    expect(failed?.errorHistory[0]?.message).toContain('uses `captured` from outside');
  });

  it('ignores ctx.prolong and ctx.onTimeout in this mode', async () => {
    const id = await ctx.queue.addJob({
      jobType: 'slow',
      payload: {},
      timeoutMs: 200,
      forceKillOnTimeout: true,
      maxAttempts: 1,
    });
    await ctx.queue
      .createProcessor({
        slow: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
          c.prolong(60_000);
          c.onTimeout(() => 60_000);
          await new Promise((resolve) => setTimeout(resolve, 3000));
          return 'finished';
        },
      })
      .start();
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'failed', failureReason: 'timeout' });
    expect((await ctx.queue.getJobEvents(id)).filter((e) => e.eventType === 'prolonged')).toEqual([]);
  });

  it('keeps the thread alive for a handler that awaits something holding no handle, until the timeout', async () => {
    const forever = await ctx.queue.addJob({
      jobType: 'forever',
      payload: {},
      timeoutMs: 300,
      forceKillOnTimeout: true,
      maxAttempts: 1,
    });
    const unref = await ctx.queue.addJob({
      jobType: 'unref',
      payload: {},
      timeoutMs: 10_000,
      forceKillOnTimeout: true,
      maxAttempts: 1,
    });
    await ctx.queue
      .createProcessor({
        forever: async () => {
          await new Promise(() => {});
        },
        // Resolves after 50 ms although the timer alone would not keep the thread alive.
        unref: async () => {
          await new Promise((resolve) => setTimeout(resolve, 50).unref());
          return 'done';
        },
      })
      .start();
    const job = await ctx.queue.getJob(forever);
    expect(job).toMatchObject({ status: 'failed', failureReason: 'timeout' });
    expect(job?.errorHistory[0]?.message).toContain('timed out after 300 ms');
    const u = await ctx.queue.getJob(unref);
    expect(u?.errorHistory).toEqual([]);
    expect(u).toMatchObject({ status: 'completed', output: 'done' });
  });
});
