/**
 * The processor (SPEC §4.6, DETAILS "Handler context", "Group limits and concurrency"): one-shot
 * and background runs, handler arguments, output, filters, batches, concurrency, order, wake-up,
 * stop and drain, hooks and error reporting.
 */
import { describe, expect, it, vi } from 'vitest';
import { ConfigError, NoHandlerError } from '../../src/errors.js';
import type { JobContext } from '../../src/handler-context.js';
import { createProcessor } from '../../src/processor.js';
import { backendOf, operationsOf } from '../../src/queue.js';
import { ManualClock, forEachBackend } from '../helpers/backends.js';
import { deferred, trackRunners } from './processing-support.js';
import { sleep, waitFor } from '../helpers/wait.js';

forEachBackend('processor (§4.6)', (ctx) => {
  const track = trackRunners();

  it('start() runs one batch and resolves with the number of jobs processed', async () => {
    const ids = await ctx.queue.addJobs([1, 2, 3].map((n) => ({ jobType: 'work', payload: { n } })));
    const seen: number[] = [];
    const processor = ctx.queue.createProcessor({ work: async (p: { n: number }) => void seen.push(p.n) });
    expect(await processor.start()).toBe(3);
    expect(seen.sort()).toEqual([1, 2, 3]);
    for (const id of ids) expect((await ctx.queue.getJob(id))?.status).toBe('completed');
    expect(await processor.start()).toBe(0);
  });

  it('calls the handler with the payload, an AbortSignal and the job context', async () => {
    await ctx.queue.addJob({ jobType: 'work', payload: { to: 'a@b.c' } });
    const args: unknown[][] = [];
    await ctx.queue.createProcessor({ work: async (...a: unknown[]) => void args.push(a) }).start();
    expect(args).toHaveLength(1);
    const [payload, signal, jobCtx] = args[0] as [unknown, AbortSignal, JobContext];
    expect(payload).toEqual({ to: 'a@b.c' });
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal.aborted).toBe(false);
    for (const m of ['prolong', 'onTimeout', 'setProgress', 'setOutput'] as const)
      expect(typeof jobCtx[m]).toBe('function');
  });

  it('stores the return value as output; undefined leaves output null', async () => {
    const a = await ctx.queue.addJob({ jobType: 'value', payload: {} });
    const b = await ctx.queue.addJob({ jobType: 'nothing', payload: {} });
    await ctx.queue
      .createProcessor({ value: async () => ({ rows: 3, ok: true }), nothing: async () => undefined })
      .start();
    expect((await ctx.queue.getJob(a))?.output).toEqual({ rows: 3, ok: true });
    const jobB = await ctx.queue.getJob(b);
    expect(jobB?.status).toBe('completed');
    expect(jobB?.output).toBeNull();
  });

  it('keeps what ctx.setOutput stored instead of the return value, and emits job:output', async () => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {} });
    const outputs: unknown[] = [];
    ctx.queue.on('job:output', (e) => outputs.push(e));
    await ctx.queue
      .createProcessor({
        work: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
          await c.setOutput({ step: 1 });
          await c.setOutput({ step: 2 });
          return 'ignored';
        },
      })
      .start();
    expect((await ctx.queue.getJob(id))?.output).toEqual({ step: 2 });
    expect(outputs).toEqual([
      { jobId: id, output: { step: 1 } },
      { jobId: id, output: { step: 2 } },
    ]);
  });

  it('stores progress from ctx.setProgress, emits job:progress, and rejects values outside 0..100', async () => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {} });
    const progress: unknown[] = [];
    const thrown: unknown[] = [];
    ctx.queue.on('job:progress', (e) => progress.push(e));
    await ctx.queue
      .createProcessor({
        work: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
          await c.setProgress(40);
          for (const bad of [101, -1, 100.2, Number.NaN, Number.POSITIVE_INFINITY, '50' as unknown as number]) {
            try {
              await c.setProgress(bad);
            } catch (err) {
              thrown.push(err);
            }
          }
        },
      })
      .start();
    expect((await ctx.queue.getJob(id))?.progress).toBe(40);
    expect(progress).toEqual([{ jobId: id, progress: 40 }]);
    expect(thrown).toHaveLength(6);
    for (const err of thrown) expect(err).toBeInstanceOf(RangeError);
  });

  it('stores a fractional ctx.setProgress rounded to an integer and emits the stored value', async () => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {} });
    const progress: unknown[] = [];
    const stored: unknown[] = [];
    ctx.queue.on('job:progress', (e) => progress.push(e));
    await ctx.queue
      .createProcessor({
        work: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
          for (const value of [33.7, 0.4, 99.5]) {
            await c.setProgress(value);
            stored.push((await ctx.queue.getJob(id))?.progress);
          }
        },
      })
      .start();
    expect(stored).toEqual([34, 0, 100]);
    expect(progress).toEqual([
      { jobId: id, progress: 34 },
      { jobId: id, progress: 0 },
      { jobId: id, progress: 100 },
    ]);
  });

  it('writes un-awaited progress and output before recording the completion', async () => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {} });
    const progress: unknown[] = [];
    ctx.queue.on('job:progress', (e) => progress.push(e));
    await ctx.queue
      .createProcessor({
        work: (_p: unknown, _s: AbortSignal, c: JobContext) => {
          void c.setProgress(70);
          void c.setOutput({ partial: true });
        },
      })
      .start();
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'completed', progress: 70, output: { partial: true } });
    expect(progress).toEqual([{ jobId: id, progress: 70 }]);
  });

  it('fails a job without a handler with reason no_handler', async () => {
    const id = await ctx.queue.addJob({ jobType: 'unknown', payload: {}, maxAttempts: 1 });
    const failed: { error: Error; willRetry: boolean }[] = [];
    ctx.queue.on('job:failed', (e) => failed.push(e));
    expect(await ctx.queue.createProcessor({ other: async () => {} }).start()).toBe(1);
    const job = await ctx.queue.getJob(id);
    expect(job?.status).toBe('failed');
    expect(job?.failureReason).toBe('no_handler');
    expect(job?.errorHistory[0]?.message).toContain('unknown');
    expect(failed[0]?.error).toBeInstanceOf(NoHandlerError);
    expect(failed[0]?.willRetry).toBe(false);
  });

  it('fails a throwing handler with reason handler_error and records the message', async () => {
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {}, maxAttempts: 1 });
    await ctx.queue.createProcessor({ work: () => Promise.reject(new Error('mail server down')) }).start();
    const job = await ctx.queue.getJob(id);
    expect(job?.status).toBe('failed');
    expect(job?.failureReason).toBe('handler_error');
    expect(job?.errorHistory.map((e) => e.message)).toEqual(['mail server down']);
  });

  it('runs only own handlers: a job type named like an Object method is no handler', async () => {
    const id = await ctx.queue.addJob({ jobType: 'toString', payload: {}, maxAttempts: 1 });
    const processor = ctx.queue.createProcessor({ work: async () => {} }, { jobType: 'toString' });
    expect(await processor.start()).toBe(1);
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'failed', failureReason: 'no_handler' });
  });

  it('claims only the types named by the jobType option', async () => {
    const [a, b, c] = await ctx.queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {} },
      { jobType: 'c', payload: {} },
    ]);
    const handlers = { a: async () => {}, b: async () => {}, c: async () => {} };
    expect(await ctx.queue.createProcessor(handlers, { jobType: 'b' }).start()).toBe(1);
    expect((await ctx.queue.getJob(b!))?.status).toBe('completed');
    expect((await ctx.queue.getJob(a!))?.status).toBe('pending');
    expect(await ctx.queue.createProcessor(handlers, { jobType: ['a', 'c'] }).start()).toBe(2);
    expect((await ctx.queue.getJob(c!))?.status).toBe('completed');
  });

  it('claims at most batchSize jobs per start()', async () => {
    await ctx.queue.addJobs(Array.from({ length: 7 }, () => ({ jobType: 'work', payload: {} })));
    const processor = ctx.queue.createProcessor({ work: async () => {} }, { batchSize: 3 });
    expect(await processor.start()).toBe(3);
    expect(await processor.start()).toBe(3);
    expect(await processor.start()).toBe(1);
  });

  it('records completions that end together in one batched write', async () => {
    // A clock that moves 1 s on every reading: each write gets its own time, so ten separate
    // completion writes would leave ten different completedAt values.
    let t = Date.now();
    const queue = ctx.makeQueue({ clock: { now: () => new Date((t += 1000)) } });
    const ids = await queue.addJobs(Array.from({ length: 10 }, () => ({ jobType: 'work', payload: {} })));
    const processor = queue.createProcessor({ work: async () => {} }, { batchSize: 10 });
    expect(await processor.start()).toBe(10);
    const jobs = await Promise.all(ids.map((id) => queue.getJob(id)));
    expect(jobs.every((j) => j?.status === 'completed')).toBe(true);
    expect(new Set(jobs.map((j) => j?.completedAt?.getTime())).size).toBe(1);
  });

  it('makes one abort signal per run: the one its handler gets', async () => {
    // A run's loss (its job reclaimed meanwhile) is watched without a signal of its own: an
    // AbortController and its listener cost a processor more CPU per job than the rest.
    await ctx.queue.addJobs(Array.from({ length: 5 }, () => ({ jobType: 'work', payload: {} })));
    const Original = globalThis.AbortController;
    let made = 0;
    vi.stubGlobal(
      'AbortController',
      class extends Original {
        constructor() {
          super();
          made++;
        }
      },
    );
    try {
      expect(await ctx.queue.createProcessor({ work: async () => {} }, { batchSize: 5 }).start()).toBe(5);
    } finally {
      vi.unstubAllGlobals();
    }
    expect(made).toBe(5);
  });

  it('never runs more than `concurrency` handlers at once', async () => {
    await ctx.queue.addJobs(Array.from({ length: 6 }, () => ({ jobType: 'work', payload: {} })));
    let running = 0;
    let max = 0;
    const work = async () => {
      max = Math.max(max, ++running);
      await sleep(40);
      running--;
    };
    expect(await ctx.queue.createProcessor({ work }, { batchSize: 6, concurrency: 2 }).start()).toBe(6);
    expect(max).toBe(2);
  });

  it('refills a free slot as soon as a job ends, without waiting for the rest of the batch', async () => {
    const slow = deferred();
    const [slowId] = await ctx.queue.addJobs([
      { jobType: 'slow', payload: {}, priority: 10 },
      { jobType: 'fast', payload: {}, priority: 5 },
    ]);
    const started: string[] = [];
    const processor = track(
      ctx.queue.createProcessor(
        { slow: () => slow.promise, fast: async () => void started.push('fast') },
        { concurrency: 2, pollInterval: 60_000 },
      ),
    );
    processor.startInBackground();
    await waitFor(() => started.length === 1, { timeoutMs: 5000, what: 'the first fast job' });
    // The slow job still holds one slot; a job added now must get the other one.
    await ctx.queue.addJob({ jobType: 'fast', payload: {} });
    await waitFor(() => started.length === 2, { timeoutMs: 5000, what: 'the slot to be refilled' });
    expect((await ctx.queue.getJob(slowId!))?.status).toBe('processing');
    slow.resolve();
    await processor.stopAndDrain();
    expect((await ctx.queue.getJob(slowId!))?.status).toBe('completed');
  });

  it('runs higher priority first, then older first', async () => {
    const clock = new ManualClock(Date.now());
    const queue = ctx.makeQueue({ clock });
    const add = async (name: string, priority: number) => {
      await queue.addJob({ jobType: 'work', payload: { name }, priority });
      clock.advance(1000);
    };
    await add('low-old', 0);
    await add('high-old', 5);
    await add('low-new', 0);
    await add('high-new', 5);
    await add('top', 9);
    const order: string[] = [];
    await queue
      .createProcessor({ work: async (p: { name: string }) => void order.push(p.name) }, { concurrency: 1 })
      .start();
    expect(order).toEqual(['top', 'high-old', 'high-new', 'low-old', 'low-new']);
  });

  it('does not run a job before its runAt', async () => {
    const clock = new ManualClock(Date.now());
    const queue = ctx.makeQueue({ clock });
    const id = await queue.addJob({ jobType: 'work', payload: {}, runAt: new Date(clock.now().getTime() + 60_000) });
    const processor = queue.createProcessor({ work: async () => {} });
    expect(await processor.start()).toBe(0);
    clock.advance(59_000);
    expect(await processor.start()).toBe(0);
    clock.advance(1000);
    expect(await processor.start()).toBe(1);
    expect((await queue.getJob(id))?.status).toBe('completed');
  });

  it('reports isRunning, stop() does not wait, stopAndDrain waits for running handlers', async () => {
    const gate = deferred();
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {} });
    const started = deferred();
    const processor = track(
      ctx.queue.createProcessor({ work: async () => (started.resolve(), gate.promise) }, { pollInterval: 50 }),
    );
    expect(processor.isRunning()).toBe(false);
    processor.startInBackground();
    expect(processor.isRunning()).toBe(true);
    await started.promise;
    processor.stop();
    expect(processor.isRunning()).toBe(false);
    expect((await ctx.queue.getJob(id))?.status).toBe('processing');
    // A job added after stop() is not claimed.
    const later = await ctx.queue.addJob({ jobType: 'work', payload: {} });
    setTimeout(() => gate.resolve(), 100);
    await processor.stopAndDrain();
    expect((await ctx.queue.getJob(id))?.status).toBe('completed');
    expect((await ctx.queue.getJob(later))?.status).toBe('pending');
  });

  it('stopAndDrain resolves after its timeout when a handler does not end', async () => {
    const gate = deferred();
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {} });
    const started = deferred();
    const processor = track(ctx.queue.createProcessor({ work: () => (started.resolve(), gate.promise) }));
    processor.startInBackground();
    await started.promise;
    const t0 = Date.now();
    await processor.stopAndDrain(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    expect((await ctx.queue.getJob(id))?.status).toBe('processing');
    gate.resolve();
    await processor.stopAndDrain();
    expect((await ctx.queue.getJob(id))?.status).toBe('completed');
  });

  it('wakes an idle background processor when a job is added, long before its poll interval', async () => {
    const started = deferred<number>();
    const processor = track(
      ctx.queue.createProcessor({ work: async () => started.resolve(Date.now()) }, { pollInterval: 60_000 }),
    );
    processor.startInBackground();
    await sleep(300); // the first (empty) claim is done; the loop now waits for its poll interval
    const added = Date.now();
    await ctx.queue.addJob({ jobType: 'work', payload: {} });
    const timer = sleep(10_000).then(() => -1);
    const at = await Promise.race([started.promise, timer]);
    expect(at, 'the job did not start before the 60 s poll interval').toBeGreaterThan(0);
    expect(at - added).toBeLessThan(10_000);
    await processor.stopAndDrain();
  });

  it('calls each wake-up subscriber once its subscription is in place, so a job added while it was being made is looked for at once', async () => {
    // A notification sent before the subscription is in place is lost: a processor started
    // just before an add would otherwise wait for its poll interval.
    const backend = backendOf(ctx.queue);
    const calls = [0, 0];
    const first = await backend.subscribeJobAvailable(() => calls[0]!++);
    expect(calls).toEqual([1, 0]);
    const second = await backend.subscribeJobAvailable(() => calls[1]!++);
    expect(calls).toEqual([1, 1]);
    await first();
    await second();
  });

  it('wakes every idle processor: a batch starts on all of them at once, long before their poll interval', async () => {
    const started: string[] = [];
    const allStarted = deferred();
    const processors = ['A', 'B', 'C'].map((name) =>
      track(
        ctx.queue.createProcessor(
          {
            work: async () => {
              started.push(name);
              if (started.length === 3) allStarted.resolve();
              await allStarted.promise; // each holds its only slot until all three run
            },
          },
          { concurrency: 1, pollInterval: 60_000 },
        ),
      ),
    );
    for (const processor of processors) processor.startInBackground();
    await sleep(300); // the first (empty) claims are done; the loops wait for their poll interval
    await ctx.queue.addJobs([1, 2, 3].map((n) => ({ jobType: 'work', payload: { n } })));
    const timer = sleep(10_000).then(() => 'timed out');
    expect(await Promise.race([allStarted.promise.then(() => 'all started'), timer]), started.join()).toBe(
      'all started',
    );
    expect(started.sort()).toEqual(['A', 'B', 'C']);
    allStarted.resolve();
    for (const processor of processors) await processor.stopAndDrain();
  });

  it('wakes an idle processor limited to a job type, beside idle processors of other types', async () => {
    const started = deferred<number>();
    const processors = [
      ctx.queue.createProcessor({ a: async () => {} }, { jobType: 'a', pollInterval: 60_000 }),
      ctx.queue.createProcessor({ a: async () => {} }, { jobType: 'a', pollInterval: 60_000 }),
      ctx.queue.createProcessor({ b: async () => started.resolve(Date.now()) }, { jobType: 'b', pollInterval: 60_000 }),
    ].map(track);
    for (const processor of processors) processor.startInBackground();
    await sleep(300);
    await ctx.queue.addJob({ jobType: 'b', payload: {} });
    const timer = sleep(10_000).then(() => -1);
    expect(
      await Promise.race([started.promise, timer]),
      'the job did not start before the 60 s poll interval',
    ).toBeGreaterThan(0);
    for (const processor of processors) await processor.stopAndDrain();
  });

  describe('runs at once, long before its poll interval, the work its own outcome makes due', () => {
    /** Runs `handlers` on one idle processor polling every 60 s; resolves with the run order. */
    async function runAll(handlers: Record<string, () => Promise<void>>, expected: number, options = {}) {
      const order: string[] = [];
      const all = deferred();
      const wrapped = Object.fromEntries(
        Object.entries(handlers).map(([type, handler]) => [
          type,
          async () => {
            order.push(type);
            if (order.length === expected) all.resolve();
            await handler();
          },
        ]),
      );
      const processor = track(ctx.queue.createProcessor(wrapped, { pollInterval: 60_000, ...options }));
      processor.startInBackground();
      const timer = sleep(10_000).then(() => 'timed out');
      const outcome = await Promise.race([all.promise.then(() => 'ran'), timer]);
      await processor.stopAndDrain();
      expect(outcome, order.join()).toBe('ran');
      return order;
    }

    it('a job whose prerequisite (by id) it completed', async () => {
      const first = await ctx.queue.addJob({ jobType: 'first', payload: {} });
      await ctx.queue.addJob({ jobType: 'second', payload: {}, dependsOn: { jobIds: [first] } });
      expect(await runAll({ first: async () => {}, second: async () => {} }, 2)).toEqual(['first', 'second']);
    });

    it('a job behind a tag barrier that its completion ended', async () => {
      await ctx.queue.addJob({ jobType: 'first', payload: {}, tags: ['import'] });
      await ctx.queue.addJob({ jobType: 'second', payload: {}, dependsOn: { tags: ['import'] } });
      expect(await runAll({ first: async () => {}, second: async () => {} }, 2)).toEqual(['first', 'second']);
    });

    it('a job held back by its group, once the slot it waited for frees', async () => {
      await ctx.queue.addJob({ jobType: 'first', payload: {}, group: { id: 'g' } });
      await ctx.queue.addJob({ jobType: 'second', payload: {}, group: { id: 'g' } });
      const order = await runAll({ first: async () => sleep(100), second: async () => {} }, 2, {
        concurrency: 2,
        groupConcurrency: 1,
      });
      expect(order).toEqual(['first', 'second']);
    });

    it('a retry due at once', async () => {
      await ctx.queue.addJob({ jobType: 'flaky', payload: {}, maxAttempts: 2, retryDelay: 0, retryBackoff: false });
      let runs = 0;
      const order = await runAll(
        {
          flaky: async () => {
            if (++runs === 1) throw new Error('once');
          },
        },
        2,
      );
      expect(order).toEqual(['flaky', 'flaky']);
    });
  });

  it('emits job:processing then job:completed, and job:failed with willRetry', async () => {
    const events: string[] = [];
    ctx.queue.on('job:processing', (e) => events.push(`processing ${e.jobId} ${e.jobType}`));
    ctx.queue.on('job:completed', (e) => events.push(`completed ${e.jobId} ${e.jobType}`));
    ctx.queue.on('job:failed', (e) => events.push(`failed ${e.jobId} ${e.jobType} ${e.error.message} ${e.willRetry}`));
    const ok = await ctx.queue.addJob({ jobType: 'ok', payload: {} });
    await ctx.queue.createProcessor({ ok: async () => {} }).start();
    const bad = await ctx.queue.addJob({ jobType: 'bad', payload: {}, maxAttempts: 2 });
    await ctx.queue.createProcessor({ bad: async () => Promise.reject(new Error('boom')) }).start();
    expect(events).toEqual([
      `processing ${ok} ok`,
      `completed ${ok} ok`,
      `processing ${bad} bad`,
      `failed ${bad} bad boom true`,
    ]);
  });

  it('reports internal errors to onError and to the error event, both, and carries on', async () => {
    const onError: Error[] = [];
    const errorEvents: Error[] = [];
    ctx.queue.on('error', (e) => errorEvents.push(e));
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {} });
    // A return value that cannot be stored as JSON is an internal error, not a job failure.
    await ctx.queue
      .createProcessor({ work: async () => new Map([[1, 2]]) }, { onError: (e) => onError.push(e) })
      .start();
    expect(onError).toHaveLength(1);
    expect(errorEvents).toEqual(onError);
    expect(onError[0]?.message).toContain(`job ${id}`);
    expect((await ctx.queue.getJob(id))?.status).toBe('completed');
  });

  it('a throwing listener never changes the job outcome', async () => {
    const errors: Error[] = [];
    ctx.queue.on('error', (e) => errors.push(e));
    ctx.queue.on('job:processing', () => {
      throw new Error('listener bug');
    });
    ctx.queue.on('job:completed', () => {
      throw new Error('listener bug 2');
    });
    const id = await ctx.queue.addJob({ jobType: 'work', payload: {} });
    expect(await ctx.queue.createProcessor({ work: async () => 'done' }).start()).toBe(1);
    const job = await ctx.queue.getJob(id);
    expect(job?.status).toBe('completed');
    expect(job?.output).toBe('done');
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringContaining('listener bug'),
      expect.stringContaining('listener bug 2'),
    ]);
  });

  it('enqueues due cron jobs before claiming (hook point of SPEC §4.4 rule 1); a failure there does not stop the claim', async () => {
    const { events } = ctx.queue;
    const [backend, operations] = [backendOf(ctx.queue), operationsOf(ctx.queue)];
    const calls: string[] = [];
    const processor = createProcessor(
      {
        backend,
        operations,
        events,
        log: ctx.queue.log,
        enqueueDueCronJobs: async () => {
          calls.push('cron');
          await ctx.queue.addJob({ jobType: 'tick', payload: {} });
          if (calls.length > 1) throw new Error('cron store down');
          return 1;
        },
      },
      { tick: async () => void calls.push('tick') },
      { onError: (e) => calls.push(e.message) },
    );
    expect(await processor.start()).toBe(1);
    expect(await processor.start()).toBe(1);
    expect(calls).toEqual(['cron', 'tick', 'cron', expect.stringContaining('cron store down'), 'tick']);
  });

  it('rejects invalid options and handlers with a ConfigError naming the field', () => {
    const h = { work: async () => {} };
    const cases: [object, string][] = [
      [{ batchSize: 0 }, '`batchSize`'],
      [{ concurrency: 1.5 }, '`concurrency`'],
      [{ pollInterval: -1 }, '`pollInterval`'],
      [{ leaseCheckInterval: 0 }, '`leaseCheckInterval`'],
      [{ leaseCheckInterval: Number.POSITIVE_INFINITY }, '`leaseCheckInterval`'],
      [{ jobType: [] }, '`jobType`'],
      [{ jobType: [''] }, '`jobType[0]`'],
      [{ onError: 'log' }, '`onError`'],
      [{ workerId: '' }, '`workerId`'],
      [{ pollIntervalMs: 100 }, '`pollIntervalMs`'],
    ];
    for (const [options, field] of cases) {
      expect(() => ctx.queue.createProcessor(h, options as never), JSON.stringify(options)).toThrow(ConfigError);
      expect(() => ctx.queue.createProcessor(h, options as never)).toThrow(field);
    }
    expect(() => ctx.queue.createProcessor({ work: 'nope' } as never)).toThrow('`handlers.work`');
  });
});
