/**
 * Durable steps and waits (DETAILS "Handler context", "Queue-level token operations"): ctx.run,
 * ctx.waitFor, ctx.waitUntil, waitpoint tokens created by a handler or by the application,
 * token expiry through the supervisor, cancelling a waiting job, waiting jobs as active jobs
 * (tag barriers, cron overlap), input errors, and the `job:waiting` hook and `waiting` event.
 *
 * Time comes from a ManualClock (the claim reads the queue's clock), so a timed wait resumes
 * exactly when the clock reaches it; one test uses a short real wait with a background processor.
 */
import { expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import type { JobContext } from '../../src/handler-context.js';
import type { JobHandlers } from '../../src/processor-options.js';
import type { JobQueue } from '../../src/queue.js';
import { ManualClock, forEachBackend } from '../helpers/backends.js';
import { expectFailure } from './assertions.js';
import { deferred, trackRunners } from './processing-support.js';
import { waitFor } from '../helpers/wait.js';

const T0 = new Date('2030-01-01T00:00:00Z');
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const after = (ms: number) => new Date(T0.getTime() + ms);
const TOKEN_ID = /^wp_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Counts side effects by name, so a test can check each happened exactly once. */
function effects() {
  const counts: Record<string, number> = {};
  return {
    counts,
    bump(name: string) {
      counts[name] = (counts[name] ?? 0) + 1;
    },
  };
}

forEachBackend('durable waits', (ctx) => {
  const track = trackRunners();

  function setup() {
    const clock = new ManualClock(T0);
    const queue = ctx.makeQueue({ clock });
    /** One processor pass. A fresh queue each time: what carries over lives in the store only. */
    const pass = (handlers: JobHandlers) => ctx.makeQueue({ clock }).createProcessor(handlers).start();
    return { clock, queue, pass };
  }

  async function status(queue: JobQueue, id: number) {
    return (await queue.getJob(id))?.status;
  }

  async function eventTypes(queue: JobQueue, id: number) {
    return (await queue.getJobEvents(id)).map((e) => e.eventType);
  }

  it('a three-step handler with a timed wait and a token wait runs each step once and completes with attempts 1', async () => {
    const { clock, queue, pass } = setup();
    const fx = effects();
    let runs = 0;
    const handlers: JobHandlers = {
      flow: async (p: { x: number }, _s: AbortSignal, c: JobContext) => {
        runs++;
        const a = await c.run('one', async () => {
          fx.bump('one');
          return p.x + 1;
        });
        await c.waitFor({ minutes: 5 });
        const b = await c.run('two', async () => {
          fx.bump('two');
          return a * 2;
        });
        const token = await c.run('token', async () => {
          fx.bump('token');
          return c.createToken({ timeout: '1h' });
        });
        const answer = await c.waitForToken(token.id);
        if (!answer.ok) throw new Error(answer.error);
        const d = await c.run('three', async () => {
          fx.bump('three');
          return b + (answer.output as { add: number }).add;
        });
        return { a, b, d };
      },
    };
    // maxAttempts 1: a resume that consumed an attempt could not run at all.
    const id = await queue.addJob({ jobType: 'flow', payload: { x: 10 }, maxAttempts: 1 });

    await pass(handlers);
    expect(runs).toBe(1);
    const timed = await queue.getJob(id);
    expect(timed).toMatchObject({ status: 'waiting', attempts: 1, waitUntil: after(5 * MINUTE), waitTokenId: null });
    expect(timed?.stepData).toMatchObject({ one: 11 });
    expect((await queue.getJobsByStatus('waiting')).map((j) => j.id)).toEqual([id]);

    clock.set(after(5 * MINUTE - 1));
    await pass(handlers);
    expect(runs).toBe(1); // not due yet
    clock.set(after(5 * MINUTE));
    await pass(handlers);
    expect(runs).toBe(2);
    const onToken = await queue.getJob(id);
    expect(onToken).toMatchObject({ status: 'waiting', attempts: 1 });
    const tokenId = onToken!.waitTokenId!;
    expect(tokenId).toMatch(TOKEN_ID);
    expect(onToken?.stepData).toMatchObject({ one: 11, two: 22, token: { id: tokenId } });
    expect(await queue.getToken(tokenId)).toEqual({
      id: tokenId,
      jobId: id,
      status: 'waiting',
      output: null,
      timeoutAt: after(5 * MINUTE + HOUR),
      createdAt: after(5 * MINUTE),
      completedAt: null,
      tags: [],
    });

    clock.set(after(30 * MINUTE));
    await pass(handlers);
    expect(runs).toBe(2); // the token is still open
    await queue.completeToken(tokenId, { add: 100 });
    expect(await status(queue, id)).toBe('pending');
    await pass(handlers);
    expect(runs).toBe(3);

    const done = await queue.getJob(id);
    expect(done).toMatchObject({ status: 'completed', attempts: 1, output: { a: 11, b: 22, d: 122 } });
    expect(done?.stepData ?? {}).toEqual({}); // cleared on completion
    expect(fx.counts).toEqual({ one: 1, two: 1, token: 1, three: 1 });
    expect(await eventTypes(queue, id)).toEqual([
      'added',
      'processing',
      'waiting',
      'processing',
      'waiting',
      'processing',
      'completed',
    ]);
  });

  it('ctx.run keeps a step result across an automatic retry', async () => {
    const { clock, queue, pass } = setup();
    const fx = effects();
    let runs = 0;
    const handlers: JobHandlers = {
      charge: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
        runs++;
        const receipt = await c.run('charge', async () => {
          fx.bump('charge');
          return { receipt: 'r-1' };
        });
        if (runs === 1) throw new Error('mail server down');
        return receipt;
      },
    };
    const id = await queue.addJob({
      jobType: 'charge',
      payload: {},
      maxAttempts: 2,
      retryDelay: 10,
      retryBackoff: false,
    });
    await pass(handlers);
    expect(await queue.getJob(id)).toMatchObject({
      status: 'failed',
      nextAttemptAt: after(10 * SECOND),
      stepData: { charge: { receipt: 'r-1' } },
    });
    clock.set(after(10 * SECOND));
    await pass(handlers);
    expect(await queue.getJob(id)).toMatchObject({ status: 'completed', attempts: 2, output: { receipt: 'r-1' } });
    expect(fx.counts).toEqual({ charge: 1 });
  });

  it('two waits in a row are two waits: the first one done does not skip the second', async () => {
    const { clock, queue, pass } = setup();
    let runs = 0;
    const handlers: JobHandlers = {
      twice: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
        runs++;
        await c.waitFor({ minutes: 1 });
        await c.waitFor({ minutes: 1 });
        return 'rested';
      },
    };
    const id = await queue.addJob({ jobType: 'twice', payload: {} });
    await pass(handlers);
    expect(await queue.getJob(id)).toMatchObject({ status: 'waiting', waitUntil: after(MINUTE) });
    clock.set(after(MINUTE));
    await pass(handlers);
    expect(await queue.getJob(id)).toMatchObject({ status: 'waiting', waitUntil: after(2 * MINUTE) });
    clock.set(after(2 * MINUTE));
    await pass(handlers);
    expect(await queue.getJob(id)).toMatchObject({ status: 'completed', output: 'rested', attempts: 1 });
    expect(runs).toBe(3);
  });

  it('waitFor adds up its units (months 30 days, years 365 days)', async () => {
    const { queue, pass } = setup();
    const id = await queue.addJob({ jobType: 'long', payload: {} });
    await pass({
      long: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
        await c.waitFor({ seconds: 1, minutes: 1, hours: 1, days: 1, weeks: 1, months: 1, years: 1 });
      },
    });
    const total = SECOND + MINUTE + HOUR + 24 * HOUR + 7 * 24 * HOUR + 30 * 24 * HOUR + 365 * 24 * HOUR;
    expect(await queue.getJob(id)).toMatchObject({ status: 'waiting', waitUntil: after(total) });
  });

  it('waitUntil waits until the date; a past date resumes at once', async () => {
    const { clock, queue, pass } = setup();
    const fx = effects();
    const handlers: JobHandlers = {
      until: async (p: { at: string }, _s: AbortSignal, c: JobContext) => {
        fx.bump(`run:${p.at}`);
        await c.waitUntil(new Date(p.at));
        return 'after';
      },
    };
    const future = await queue.addJob({ jobType: 'until', payload: { at: after(HOUR).toISOString() } });
    const past = await queue.addJob({ jobType: 'until', payload: { at: after(-HOUR).toISOString() } });
    await pass(handlers);
    expect(await queue.getJob(future)).toMatchObject({ status: 'waiting', waitUntil: after(HOUR) });
    // The past date needs no time to pass: at most one more pass, at the same instant.
    if ((await status(queue, past)) !== 'completed') await pass(handlers);
    expect(await queue.getJob(past)).toMatchObject({ status: 'completed', output: 'after', attempts: 1 });

    clock.set(after(HOUR - 1));
    await pass(handlers);
    expect(await status(queue, future)).toBe('waiting');
    clock.set(after(HOUR));
    await pass(handlers);
    expect(await queue.getJob(future)).toMatchObject({ status: 'completed', output: 'after', attempts: 1 });
    expect(fx.counts[`run:${after(HOUR).toISOString()}`]).toBe(2);
  });

  it('a token completed before the job reaches waitForToken does not make it wait', async () => {
    const { queue, pass } = setup();
    const { id: tokenId } = await queue.createToken();
    await queue.completeToken(tokenId, { approved: true });
    let runs = 0;
    const id = await queue.addJob({ jobType: 'approve', payload: { tokenId } });
    await pass({
      approve: async (p: { tokenId: string }, _s: AbortSignal, c: JobContext) => {
        runs++;
        return c.waitForToken(p.tokenId);
      },
    });
    expect(runs).toBe(1);
    expect(await queue.getJob(id)).toMatchObject({
      status: 'completed',
      output: { ok: true, output: { approved: true } },
    });
    expect(await eventTypes(queue, id)).not.toContain('waiting');
  });

  it('a token completed while the handler runs, just before waitForToken, is not lost', async () => {
    const { queue, pass } = setup();
    const { id: tokenId } = await queue.createToken();
    const started = deferred();
    const proceed = deferred();
    let runs = 0;
    const id = await queue.addJob({ jobType: 'approve', payload: {} });
    const running = pass({
      approve: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
        runs++;
        started.resolve();
        await proceed.promise;
        return c.waitForToken(tokenId);
      },
    });
    await started.promise;
    await queue.completeToken(tokenId, 'yes');
    proceed.resolve();
    await running;
    expect(runs).toBe(1);
    expect(await queue.getJob(id)).toMatchObject({ status: 'completed', output: { ok: true, output: 'yes' } });
  });

  it('a token created by the application is awaited by a job; completeToken moves the job to pending', async () => {
    const { clock, queue, pass } = setup();
    const { id: tokenId } = await queue.createToken({ tags: ['approval', 'order:7'] });
    expect(tokenId).toMatch(TOKEN_ID);
    expect(await queue.getToken(tokenId)).toEqual({
      id: tokenId,
      jobId: null,
      status: 'waiting',
      output: null,
      timeoutAt: null,
      createdAt: T0,
      completedAt: null,
      tags: ['approval', 'order:7'],
    });
    let runs = 0;
    const handlers: JobHandlers = {
      ship: async (p: { tokenId: string }, _s: AbortSignal, c: JobContext) => {
        runs++;
        return c.waitForToken(p.tokenId);
      },
    };
    const id = await queue.addJob({ jobType: 'ship', payload: { tokenId } });
    await pass(handlers);
    expect(await queue.getJob(id)).toMatchObject({
      status: 'waiting',
      waitTokenId: tokenId,
      waitUntil: null,
      attempts: 1,
    });
    expect((await queue.getToken(tokenId))?.jobId).toBe(id);

    clock.set(after(HOUR));
    await pass(handlers);
    expect(runs).toBe(1); // a token wait has no time limit of its own

    clock.set(after(2 * HOUR));
    await queue.completeToken(tokenId, { by: 'alice' });
    expect(await queue.getToken(tokenId)).toMatchObject({
      status: 'completed',
      output: { by: 'alice' },
      completedAt: after(2 * HOUR),
      jobId: id,
    });
    expect(await status(queue, id)).toBe('pending');
    // Completing again is a no-op: the first output stays.
    await queue.completeToken(tokenId, { by: 'mallory' });
    expect((await queue.getToken(tokenId))?.output).toEqual({ by: 'alice' });

    await pass(handlers);
    expect(runs).toBe(2);
    expect(await queue.getJob(id)).toMatchObject({
      status: 'completed',
      attempts: 1,
      output: { ok: true, output: { by: 'alice' } },
    });
  });

  it('getToken returns null and completeToken does nothing for an unknown token', async () => {
    const { queue } = setup();
    const unknown = 'wp_00000000-0000-4000-8000-000000000000';
    expect(await queue.getToken(unknown)).toBeNull();
    await queue.completeToken(unknown, 'x');
    expect(await queue.getToken(unknown)).toBeNull();
  });

  it('the supervisor expires a timed-out token; the job resumes with ok: false', async () => {
    const { clock, queue, pass } = setup();
    const fx = effects();
    const handlers: JobHandlers = {
      approval: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
        fx.bump('run');
        const token = await c.run('token', () => c.createToken({ timeout: '10m' }));
        return c.waitForToken(token.id);
      },
    };
    const id = await queue.addJob({ jobType: 'approval', payload: {} });
    await pass(handlers);
    const tokenId = (await queue.getJob(id))!.waitTokenId!;
    expect((await queue.getToken(tokenId))?.timeoutAt).toEqual(after(10 * MINUTE));

    const supervisor = queue.createSupervisor();
    clock.set(after(10 * MINUTE - 1));
    expect((await supervisor.start()).expiredTokens).toBe(0);
    expect(await status(queue, id)).toBe('waiting');
    clock.set(after(10 * MINUTE));
    expect(await supervisor.start()).toEqual({
      reclaimedJobs: 0,
      cleanedUpJobs: 0,
      cleanedUpEvents: 0,
      expiredTokens: 1,
    });
    expect((await queue.getToken(tokenId))?.status).toBe('timed_out');
    expect(await status(queue, id)).toBe('pending');
    expect((await supervisor.start()).expiredTokens).toBe(0);
    // A timed-out token cannot be completed any more.
    await queue.completeToken(tokenId, 'late');
    expect((await queue.getToken(tokenId))?.status).toBe('timed_out');

    await pass(handlers);
    expect(await queue.getJob(id)).toMatchObject({
      status: 'completed',
      attempts: 1,
      output: { ok: false, error: 'Token timed out' },
    });
    expect(fx.counts).toEqual({ run: 2 });
  });

  it('expireTimedOutTokens expires due tokens only, with or without a waiting job', async () => {
    const { clock, queue } = setup();
    const soon = await queue.createToken({ timeout: '30s' });
    const later = await queue.createToken({ timeout: '2h' });
    const never = await queue.createToken();
    clock.set(after(HOUR));
    expect(await queue.expireTimedOutTokens()).toBe(1);
    expect((await queue.getToken(soon.id))?.status).toBe('timed_out');
    expect((await queue.getToken(later.id))?.status).toBe('waiting');
    expect((await queue.getToken(never.id))?.status).toBe('waiting');
    clock.set(after(400 * 24 * HOUR));
    expect(await queue.expireTimedOutTokens()).toBe(1);
    expect((await queue.getToken(never.id))?.status).toBe('waiting');
  });

  it('cancelJob cancels a job waiting on time; it never resumes', async () => {
    const { clock, queue, pass } = setup();
    let runs = 0;
    const handlers: JobHandlers = {
      nap: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
        runs++;
        await c.waitFor({ minutes: 10 });
      },
    };
    const id = await queue.addJob({ jobType: 'nap', payload: {} });
    await pass(handlers);
    const cancelled: unknown[] = [];
    queue.on('job:cancelled', (e) => cancelled.push(e));
    clock.set(after(MINUTE));
    await queue.cancelJob(id);
    expect(await queue.getJob(id)).toMatchObject({ status: 'cancelled', lastCancelledAt: after(MINUTE) });
    expect(cancelled).toEqual([{ jobId: id }]);
    clock.set(after(HOUR));
    await pass(handlers);
    expect(runs).toBe(1);
    expect(await status(queue, id)).toBe('cancelled');
  });

  it('cancelJob cancels a job waiting on a token; completing the token later does not revive it', async () => {
    const { queue, pass } = setup();
    const { id: tokenId } = await queue.createToken();
    let runs = 0;
    const handlers: JobHandlers = {
      ship: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
        runs++;
        return c.waitForToken(tokenId);
      },
    };
    const id = await queue.addJob({ jobType: 'ship', payload: {} });
    await pass(handlers);
    expect(await status(queue, id)).toBe('waiting');
    await queue.cancelJob(id);
    await queue.completeToken(tokenId, 'too late');
    expect(await status(queue, id)).toBe('cancelled');
    await pass(handlers);
    expect(runs).toBe(1);
  });

  it('a waiting job holds a tag barrier (dependsOn.tags) until it completes', async () => {
    const { clock, queue, pass } = setup();
    const order: string[] = [];
    const handlers: JobHandlers = {
      import: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
        order.push('import');
        await c.waitFor({ minutes: 10 });
        order.push('import done');
      },
      report: async () => void order.push('report'),
    };
    const importId = await queue.addJob({ jobType: 'import', payload: {}, tags: ['batch:1'] });
    await pass(handlers);
    expect(await status(queue, importId)).toBe('waiting');
    const reportId = await queue.addJob({ jobType: 'report', payload: {}, dependsOn: { tags: ['batch:1'] } });
    await pass(handlers);
    expect(await status(queue, reportId)).toBe('pending');
    expect(order).toEqual(['import']);

    clock.set(after(10 * MINUTE));
    await pass(handlers); // the import resumes and completes
    expect(await status(queue, importId)).toBe('completed');
    if ((await status(queue, reportId)) !== 'completed') await pass(handlers);
    expect(await status(queue, reportId)).toBe('completed');
    expect(order).toEqual(['import', 'import', 'import done', 'report']);
  });

  it('a waiting cron job counts as active for allowOverlap false', async () => {
    const { clock, queue, pass } = setup();
    const scheduleId = await queue.addCronJob({
      scheduleName: 'sync',
      cronExpression: '* * * * *',
      jobType: 'sync',
      payload: {},
    });
    const handlers: JobHandlers = {
      sync: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
        await c.waitFor({ minutes: 5 });
      },
    };
    clock.set(after(MINUTE));
    await pass(handlers); // enqueues the first instance and runs it into its wait
    const [first] = await queue.getJobs();
    expect(first).toMatchObject({ status: 'waiting' });
    for (const minute of [2, 3, 4]) {
      clock.set(after(minute * MINUTE));
      expect(await queue.enqueueDueCronJobs()).toBe(0);
    }
    expect((await queue.getCronJob(scheduleId))?.nextRunAt).toEqual(after(5 * MINUTE));
    // The wait ends and slot 5 is due: the pass checks the slot first, while the instance still
    // waits (skipped), then resumes the instance to completion.
    clock.set(after(6 * MINUTE));
    await pass(handlers);
    expect(await status(queue, first!.id)).toBe('completed');
    expect(await queue.getJobs()).toHaveLength(1);
    expect(await queue.enqueueDueCronJobs()).toBe(0); // slot 7 is not due yet
    clock.set(after(7 * MINUTE));
    expect(await queue.enqueueDueCronJobs()).toBe(1);
    expect(await queue.getJobs()).toHaveLength(2);
  });

  it('rejects invalid wait durations, dates and token timeouts with clear errors, and does not wait', async () => {
    const { queue, pass } = setup();
    const caught: unknown[] = [];
    const attempt = async (run: () => Promise<unknown>) => {
      try {
        await run();
        caught.push('no error');
      } catch (err) {
        caught.push(err);
      }
    };
    const id = await queue.addJob({ jobType: 'bad', payload: {} });
    await pass({
      bad: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
        await attempt(() => c.waitFor({}));
        await attempt(() => c.waitFor({ minutes: 0 }));
        await attempt(() => c.waitFor({ minutes: -1 }));
        await attempt(() => c.waitFor({ seconds: Number.NaN }));
        await attempt(() => c.waitFor({ fortnights: 1 } as never));
        await attempt(() => c.waitUntil(new Date('not a date')));
        await attempt(() => c.createToken({ timeout: '5x' }));
        await attempt(() => c.createToken({ timeout: '366d' }));
        await attempt(() => c.createToken({ timeout: 30 } as never));
        return 'survived';
      },
    });
    const fragments = [[], ['0'], ['-1'], ['NaN'], ['fortnights'], ['Invalid Date'], ['5x'], ['366d'], ['30']];
    expect(caught).toHaveLength(fragments.length);
    caught.forEach((err, i) => {
      expect(err, `case ${i}`).toBeInstanceOf(ValidationError);
      for (const f of fragments[i]!) expect((err as Error).message, `case ${i}`).toContain(f);
    });
    expect(await queue.getJob(id)).toMatchObject({
      status: 'completed',
      output: 'survived',
      waitUntil: null,
      waitTokenId: null,
    });
    expect(await eventTypes(queue, id)).not.toContain('waiting');

    await expectFailure(() => queue.createToken({ timeout: '0s' }), ValidationError, {
      field: 'timeout',
      message: ['0s'],
    });
    await expectFailure(() => queue.createToken({ timeout: '2w' }), ValidationError, {
      field: 'timeout',
      message: ['2w'],
    });
  });

  it('emits job:waiting { jobId, jobType } and records `waiting` events with { waitUntil, tokenId }', async () => {
    const { clock, queue, pass } = setup();
    const hooks: unknown[] = [];
    queue.on('job:waiting', (e) => hooks.push(e));
    const { id: tokenId } = await queue.createToken();
    const handlers: JobHandlers = {
      steps: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
        await c.waitFor({ seconds: 30 });
        return c.waitForToken(tokenId);
      },
    };
    const id = await queue.addJob({ jobType: 'steps', payload: {} });
    // The hook fires on the queue that runs the processor.
    await queue.createProcessor(handlers).start();
    expect(hooks).toEqual([{ jobId: id, jobType: 'steps' }]);
    clock.set(after(30 * SECOND));
    await queue.createProcessor(handlers).start();
    expect(hooks).toEqual([
      { jobId: id, jobType: 'steps' },
      { jobId: id, jobType: 'steps' },
    ]);
    const waits = (await queue.getJobEvents(id)).filter((e) => e.eventType === 'waiting');
    expect(waits).toHaveLength(2);
    const [timed, token] = waits.map((e) => e.metadata as { waitUntil: string | null; tokenId: string | null });
    expect(new Date(timed!.waitUntil!).getTime()).toBe(after(30 * SECOND).getTime());
    expect(timed!.tokenId).toBeNull();
    expect(token).toEqual({ waitUntil: null, tokenId });
    expect(waits.map((e) => e.createdAt)).toEqual([T0, after(30 * SECOND)]);

    await queue.completeToken(tokenId, 1);
    await pass(handlers);
    expect(hooks).toHaveLength(2); // completing emits no further job:waiting
  });

  it('a background processor resumes a timed wait and a completed token on its own (real time)', async () => {
    let runs = 0;
    const processor = track(
      ctx.queue.createProcessor(
        {
          nap: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
            runs++;
            await c.waitFor({ seconds: 1 });
            return 'rested';
          },
          gate: async (p: { tokenId: string }, _s: AbortSignal, c: JobContext) => c.waitForToken(p.tokenId),
        },
        { pollInterval: 200 },
      ),
    );
    const { id: tokenId } = await ctx.queue.createToken();
    const nap = await ctx.queue.addJob({ jobType: 'nap', payload: {} });
    const gate = await ctx.queue.addJob({ jobType: 'gate', payload: { tokenId } });
    processor.startInBackground();
    await waitFor(async () => (await status(ctx.queue, gate)) === 'waiting', {
      timeoutMs: 5000,
      what: 'the gate job to wait',
    });
    await ctx.queue.completeToken(tokenId, 'open');
    await waitFor(async () => (await status(ctx.queue, gate)) === 'completed', {
      timeoutMs: 5000,
      what: 'the gate job to resume',
    });
    await waitFor(async () => (await status(ctx.queue, nap)) === 'completed', {
      timeoutMs: 5000,
      what: 'the nap job to resume',
    });
    await processor.stopAndDrain();
    expect(runs).toBe(2);
    expect(await ctx.queue.getJob(gate)).toMatchObject({ output: { ok: true, output: 'open' }, attempts: 1 });
    expect(await ctx.queue.getJob(nap)).toMatchObject({ output: 'rested', attempts: 1 });
  });
});
