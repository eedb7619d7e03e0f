/**
 * Every value the library accepts is storable on both backends (docs/jobs.md "Limits"): dates
 * from 0001-01-01 to 4999-12-31, JSON nested at most 100 deep, idempotency keys of at most 1024
 * UTF-8 bytes. Outside them: a ValidationError naming the field, nothing written. Retention and
 * reclaim windows longer than all stored time are shortened to it, not sent to the store.
 */
import { expect, it } from 'vitest';
import { ConfigError, ValidationError } from '../../src/errors.js';
import type { JobContext } from '../../src/handler-context.js';
import type { JobOptions } from '../../src/types.js';
import { ManualClock, forEachBackend } from '../helpers/backends.js';
import { expectFailure } from './assertions.js';
import { deferred, trackRunners } from './processing-support.js';
import { waitFor } from '../helpers/wait.js';

const MIN = new Date('0001-01-01T00:00:00.000Z');
const MAX = new Date('4999-12-31T23:59:59.999Z');
const TOO_EARLY = new Date(MIN.getTime() - 1);
const TOO_LATE = new Date(MAX.getTime() + 1);
const FAR = new Date('+275760-09-13T00:00:00.000Z');

/** A test case label and its date. */
const iso = (date: Date): [string, Date] => [date.toISOString(), date];

/** `depth` arrays nested in each other around a number. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** `n` distinct 3-byte characters that do not compress well. */
function cjk(n: number): string {
  return Array.from({ length: n }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20_000))).join('');
}

forEachBackend('storable limits (§7)', (ctx) => {
  const track = trackRunners();

  it.each([MIN, MAX].map(iso))('stores runAt %s to the millisecond', async (_label, runAt) => {
    const id = await ctx.queue.addJob({ jobType: 'a', payload: {}, runAt });
    expect((await ctx.queue.getJob(id))?.runAt.toISOString()).toBe(runAt.toISOString());
  });

  it.each([TOO_EARLY, TOO_LATE, FAR].map(iso))(
    'refuses runAt %s in addJob, addJobs and editJob; nothing is written',
    async (_label, runAt) => {
      const message = ['`runAt`', '0001-01-01T00:00:00.000Z', '4999-12-31T23:59:59.999Z'];
      await expectFailure(ctx.queue.addJob({ jobType: 'a', payload: {}, runAt }), ValidationError, {
        field: 'runAt',
        message,
      });
      await expectFailure(ctx.queue.addJobs([{ jobType: 'a', payload: {}, runAt }]), ValidationError, {
        field: 'jobs[0].runAt',
      });
      expect(await ctx.queue.getAllJobs()).toEqual([]);
      const id = await ctx.queue.addJob({ jobType: 'a', payload: {} });
      const before = await ctx.queue.getJob(id);
      await expectFailure(ctx.queue.editJob(id, { runAt }), ValidationError, { field: 'updates.runAt' });
      expect(await ctx.queue.getJob(id)).toEqual(before);
    },
  );

  it.each([TOO_EARLY, FAR].map(iso))('refuses a filter date %s', async (_label, date) => {
    await expectFailure(ctx.queue.getJobs({ runAt: { lt: date } }), ValidationError, { field: 'filter.runAt.lt' });
    await expectFailure(ctx.queue.cancelAllUpcomingJobs({ runAt: date }), ValidationError, { field: 'filter.runAt' });
  });

  it('cleanupOldJobs and cleanupOldJobEvents with a retention longer than all stored time remove nothing', async () => {
    const id = await ctx.queue.addJob({ jobType: 'a', payload: {} });
    await ctx.queue.cancelJob(id);
    for (const days of [1e12, Number.MAX_VALUE]) {
      expect(await ctx.queue.cleanupOldJobs(days)).toBe(0);
      expect(await ctx.queue.cleanupOldJobEvents(days)).toBe(0);
    }
    expect((await ctx.queue.getJob(id))?.status).toBe('cancelled');
    expect(await ctx.queue.getJobEvents(id)).toHaveLength(2);
  });

  it('reclaimStuckJobs with a window longer than all stored time reclaims nothing', async () => {
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    const queue = ctx.makeQueue({ clock });
    const id = await queue.addJob({ jobType: 'a', payload: {} });
    const release = deferred();
    const processor = track(queue.createProcessor({ a: () => release.promise }));
    processor.startInBackground();
    await waitFor(async () => (await queue.getJob(id))?.status === 'processing', {
      timeoutMs: 10_000,
      what: 'the job to be claimed',
    });
    clock.advance(365 * 86_400_000);
    expect(await queue.reclaimStuckJobs(1e12)).toBe(0);
    expect(await queue.reclaimStuckJobs(Number.MAX_VALUE)).toBe(0);
    expect((await queue.getJob(id))?.status).toBe('processing');
    release.resolve();
    await processor.stopAndDrain();
  });

  it('a supervisor with retention and stuck-job windows longer than all stored time runs without errors', async () => {
    const errors: Error[] = [];
    const supervisor = track(
      ctx.queue.createSupervisor({
        stuckJobsTimeoutMinutes: 1e15,
        cleanupJobsDaysToKeep: 1e12,
        cleanupEventsDaysToKeep: Number.MAX_VALUE,
        onError: (e) => errors.push(e),
      }),
    );
    const id = await ctx.queue.addJob({ jobType: 'a', payload: {} });
    await ctx.queue.cancelJob(id);
    expect(await supervisor.start()).toEqual({
      reclaimedJobs: 0,
      cleanedUpJobs: 0,
      cleanedUpEvents: 0,
      expiredTokens: 0,
    });
    expect(errors).toEqual([]);
  });

  it('refuses timer intervals Node.js cannot keep (they would fire after 1 ms)', () => {
    expect(() => ctx.queue.createSupervisor({ intervalMs: 2 ** 31 })).toThrow(ConfigError);
    expect(() => ctx.queue.createProcessor({}, { pollInterval: 2 ** 31 })).toThrow(/`pollInterval`.*2147483647/);
    expect(() => ctx.queue.createProcessor({}, { pollInterval: 2 ** 31 - 1 })).not.toThrow();
  });

  it('stores a payload nested 100 deep and refuses 101 or far deeper with a ValidationError', async () => {
    const id = await ctx.queue.addJob({ jobType: 'a', payload: nested(100) });
    expect((await ctx.queue.getJob(id))?.payload).toEqual(nested(100));
    for (const depth of [101, 100_000]) {
      await expectFailure(ctx.queue.addJob({ jobType: 'a', payload: nested(depth) }), ValidationError, {
        field: 'payload',
        message: ['nested at most 100 deep'],
      });
    }
    await expectFailure(ctx.queue.editJob(id, { payload: nested(101) }), ValidationError, { field: 'updates.payload' });
    const { id: token } = await ctx.queue.createToken();
    await expectFailure(ctx.queue.completeToken(token, nested(101)), ValidationError, { field: 'output' });
    expect(await ctx.queue.getAllJobs()).toHaveLength(1);
    expect((await ctx.queue.getToken(token))?.status).toBe('waiting');
  });

  it('accepts an idempotency key of 1024 bytes and refuses longer ones, whatever the characters', async () => {
    const keys = ['k'.repeat(1024), '\u{1F600}'.repeat(256), cjk(341) + 'x'];
    for (const key of keys) {
      const id = await ctx.queue.addJob({ jobType: 'a', payload: {}, idempotencyKey: key });
      expect(await ctx.queue.addJob({ jobType: 'a', payload: {}, idempotencyKey: key })).toBe(id);
      expect((await ctx.queue.getJob(id))?.idempotencyKey).toBe(key);
    }
    const tooLong = ['k'.repeat(1025), cjk(1024), '\u{1F600}'.repeat(1024), cjk(342)];
    for (const key of tooLong) {
      const job: JobOptions = { jobType: 'a', payload: {}, idempotencyKey: key };
      await expectFailure(ctx.queue.addJob(job), ValidationError, { field: 'idempotencyKey', message: ['1024'] });
      await expectFailure(ctx.queue.addJobs([job]), ValidationError, { field: 'jobs[0].idempotencyKey' });
    }
    expect(await ctx.queue.getAllJobs()).toHaveLength(keys.length);
  });

  it('a handler gets a ValidationError for a wait past 4999 or a step result nested too deep; the job does not wait', async () => {
    const id = await ctx.queue.addJob({ jobType: 'w', payload: {} });
    const caught: unknown[] = [];
    const attempt = async (run: () => Promise<unknown>) => {
      try {
        await run();
        caught.push('no error');
      } catch (err) {
        caught.push(err);
      }
    };
    const processor = track(
      ctx.queue.createProcessor({
        w: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
          await attempt(() => c.waitFor({ years: 1e6 }));
          await attempt(() => c.waitFor({ years: Number.MAX_VALUE, days: Number.MAX_VALUE }));
          await attempt(() => c.waitUntil(TOO_LATE));
          await attempt(() => c.run('deep', () => nested(101)));
          await attempt(() => c.setOutput(nested(101)));
          return 'done';
        },
      }),
    );
    await processor.start();
    expect(caught.map((e) => e instanceof ValidationError && e.field)).toEqual([
      'duration',
      'duration',
      'date',
      'step "deep"',
      'output',
    ]);
    expect(await ctx.queue.getJob(id)).toMatchObject({
      status: 'completed',
      output: 'done',
      waitUntil: null,
      stepData: null,
    });
  });
});
