/**
 * The overview: getJobCounts (jobs per status and per job type, each status counted up to a
 * limit) and getThroughput (completed and failed attempts per minute, counted by the writes
 * that record them, kept about an hour).
 */
import { expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { backendOf } from '../../src/queue.js';
import type { JobStatus } from '../../src/types.js';
import { ManualClock, forEachBackend } from '../helpers/backends.js';
import { expectFailure } from './assertions.js';
import { claimJob, completeJob, failJob } from './job-states.js';
import { failOne } from '../helpers/fail.js';

const MINUTE = 60_000;
const T0 = new Date('2030-01-01T10:00:00.000Z');

function counts(partial: Partial<Record<JobStatus, number>>): Record<JobStatus, number> {
  return { pending: 0, processing: 0, completed: 0, failed: 0, cancelled: 0, waiting: 0, ...partial };
}

forEachBackend('getJobCounts', (ctx) => {
  it('counts the jobs of every status, and of every job type within each status', async () => {
    const q = ctx.queue;
    const [a1, a2] = await q.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {} },
      { jobType: 'c', payload: {} },
    ]);
    await q.addJobs([
      { jobType: 'b', payload: {} },
      { jobType: 'c', payload: {} },
    ]);
    await q.cancelJob(a1!);
    await q.cancelJob(a2!);
    const done = await q.addJob({ jobType: 'done', payload: {} });
    await completeJob(q, done);
    const broken = await q.addJob({ jobType: 'broken', payload: {} });
    await failJob(q, broken);
    const running = await q.addJob({ jobType: 'running', payload: {} });
    await claimJob(q, running);

    expect(await q.getJobCounts()).toEqual({
      byStatus: counts({ pending: 4, processing: 1, completed: 1, failed: 1, cancelled: 2 }),
      atLeast: [],
      byJobType: [
        { jobType: 'a', counts: counts({ cancelled: 2 }) },
        { jobType: 'b', counts: counts({ pending: 2 }) },
        { jobType: 'broken', counts: counts({ failed: 1 }) },
        { jobType: 'c', counts: counts({ pending: 2 }) },
        { jobType: 'done', counts: counts({ completed: 1 }) },
        { jobType: 'running', counts: counts({ processing: 1 }) },
      ],
      limit: 10_000,
    });
  });

  it('reports every status, with nothing stored', async () => {
    expect(await ctx.queue.getJobCounts()).toEqual({ byStatus: counts({}), atLeast: [], byJobType: [], limit: 10_000 });
  });

  it('counts each status up to the limit, as "at least", and the job types of its newest jobs', async () => {
    await ctx.queue.addJobs(['old', 'old', 'mid', 'new', 'new'].map((jobType) => ({ jobType, payload: {} })));
    const id = await ctx.queue.addJob({ jobType: 'gone', payload: {} });
    await ctx.queue.cancelJob(id);
    expect(await ctx.queue.getJobCounts({ limit: 3 })).toEqual({
      byStatus: counts({ pending: 3, cancelled: 1 }),
      atLeast: ['pending'],
      // The three newest pending jobs: new, new, mid.
      byJobType: [
        { jobType: 'gone', counts: counts({ cancelled: 1 }) },
        { jobType: 'mid', counts: counts({ pending: 1 }) },
        { jobType: 'new', counts: counts({ pending: 2 }) },
      ],
      limit: 3,
    });
  });

  it('reports a status holding exactly the limit as "at least" the limit', async () => {
    await ctx.queue.addJobs([1, 2].map(() => ({ jobType: 'x', payload: {} })));
    const result = await ctx.queue.getJobCounts({ limit: 2 });
    expect(result.byStatus.pending).toBe(2);
    expect(result.atLeast).toEqual(['pending']);
    expect((await ctx.queue.getJobCounts({ limit: 3 })).atLeast).toEqual([]);
  });

  it('counts job types past one read of the Redis walk (slices of the newest jobs)', async () => {
    const types = Array.from({ length: 1_200 }, (_, i) => (i < 1_000 ? 'early' : 'late'));
    await ctx.queue.addJobs(types.map((jobType) => ({ jobType, payload: {} })));
    const result = await ctx.queue.getJobCounts({ limit: 1_100 });
    expect(result.byStatus.pending).toBe(1_100);
    expect(result.byJobType).toEqual([
      { jobType: 'early', counts: counts({ pending: 900 }) },
      { jobType: 'late', counts: counts({ pending: 200 }) },
    ]);
  });

  it.each([
    ['limit 0', { limit: 0 }, 'options.limit', ['an integer between 1 and 100000', '0']],
    ['limit above the maximum', { limit: 100_001 }, 'options.limit', ['100001']],
    ['limit not an integer', { limit: 1.5 }, 'options.limit', ['1.5']],
    ['limit a string', { limit: '10' }, 'options.limit', ['"10"']],
    ['an unknown option', { limits: 10 }, 'options.limits', ['Did you mean `limit`?']],
    ['options not an object', 10, 'options', ['an object { limit? }']],
  ])('refuses %s with a ValidationError naming the field', async (_, options, field, message) => {
    await expectFailure(ctx.queue.getJobCounts(options as never), ValidationError, { field, message });
  });
});

forEachBackend('getThroughput', (ctx) => {
  function setup(start = T0) {
    const clock = new ManualClock(start);
    return { clock, queue: ctx.makeQueue({ clock }) };
  }

  it('reports completed and failed attempts per minute, the current minute last', async () => {
    const { clock, queue } = setup(new Date(T0.getTime() + 5_000));
    const ids = await queue.addJobs(['a', 'b', 'c', 'd', 'e'].map((jobType) => ({ jobType, payload: {} })));
    await completeJob(queue, ids[0]!);
    await completeJob(queue, ids[1]!);
    clock.advance(MINUTE);
    // A failed attempt counts whether a retry follows or not.
    await failJob(queue, ids[2]!, { retryAt: new Date(clock.now().getTime() + MINUTE) });
    await failJob(queue, ids[3]!);
    clock.advance(2 * MINUTE + 30_000);
    await completeJob(queue, ids[4]!);

    const minute = (n: number) => new Date(T0.getTime() + n * MINUTE);
    expect(await queue.getThroughput({ minutes: 5 })).toEqual([
      { minute: minute(-1), completed: 0, failed: 0 },
      { minute: minute(0), completed: 2, failed: 0 },
      { minute: minute(1), completed: 0, failed: 2 },
      { minute: minute(2), completed: 0, failed: 0 },
      { minute: minute(3), completed: 1, failed: 0 },
    ]);
    const hour = await queue.getThroughput();
    expect(hour).toHaveLength(60);
    expect(hour.at(-1)).toEqual({ minute: minute(3), completed: 1, failed: 0 });
    expect(hour[0]!.minute).toEqual(minute(-56));
  });

  it('counts every job of a batch of completions, and each stuck job a reclaim takes', async () => {
    const { clock, queue } = setup();
    const ids = await queue.addJobs(
      ['a', 'b', 'c'].map((jobType) => ({ jobType, payload: {}, maxAttempts: jobType === 'c' ? 1 : 3 })),
    );
    const workerId = 'w';
    const claimed = await backendOf(queue).claimJobs({ workerId, batchSize: 3, now: clock.now() });
    expect(claimed).toHaveLength(3);
    const recorded = await backendOf(queue).completeJobs(
      [ids[0]!].map((jobId) => ({ jobId, workerId })),
      clock.now(),
    );
    expect(recorded).toEqual([ids[0]]);
    clock.advance(15 * MINUTE);
    // b goes back to pending, c (no attempt left) fails: both attempts failed.
    expect(await queue.reclaimStuckJobs(10)).toBe(2);
    const perMinute = await queue.getThroughput({ minutes: 16 });
    expect(perMinute[0]).toEqual({ minute: T0, completed: 1, failed: 0 });
    expect(perMinute.at(-1)).toEqual({ minute: new Date(T0.getTime() + 15 * MINUTE), completed: 0, failed: 2 });
  });

  it('does not count a completion or failure that was not recorded (fencing)', async () => {
    const { clock, queue } = setup();
    const id = await queue.addJob({ jobType: 'a', payload: {} });
    await claimJob(queue, id);
    const backend = backendOf(queue);
    expect(await backend.completeJobs([{ jobId: id, workerId: 'someone-else' }], clock.now())).toEqual([]);
    const failed = await failOne(backend, {
      jobId: id,
      workerId: 'someone-else',
      message: 'late',
      reason: 'handler_error',
      retryAt: null,
      now: clock.now(),
    });
    expect(failed).toBeNull();
    expect(await queue.getThroughput({ minutes: 1 })).toEqual([{ minute: T0, completed: 0, failed: 0 }]);
  });

  it('counts what a processor runs', async () => {
    const { queue } = setup();
    await queue.addJobs([
      { jobType: 'ok', payload: {} },
      { jobType: 'ok', payload: {} },
      { jobType: 'bad', payload: {}, maxAttempts: 1 },
    ]);
    const processor = queue.createProcessor({
      ok: async () => undefined,
      bad: async () => {
        throw new Error('nope');
      },
    });
    await processor.start();
    await processor.stopAndDrain();
    expect(await queue.getThroughput({ minutes: 1 })).toEqual([{ minute: T0, completed: 2, failed: 1 }]);
  });

  it('keeps about an hour: the supervisor removes older counters', async () => {
    const { clock, queue } = setup();
    await completeJob(queue, await queue.addJob({ jobType: 'a', payload: {} }));
    clock.advance(30 * MINUTE);
    await queue.createSupervisor().start();
    clock.set(T0);
    expect(await queue.getThroughput({ minutes: 1 })).toEqual([{ minute: T0, completed: 1, failed: 0 }]);
    clock.advance(62 * MINUTE);
    await queue.createSupervisor().start();
    clock.set(T0);
    expect(await queue.getThroughput({ minutes: 1 })).toEqual([{ minute: T0, completed: 0, failed: 0 }]);
  });

  it.each([
    ['minutes 0', { minutes: 0 }, 'options.minutes', ['an integer between 1 and 60', '0']],
    ['minutes above 60', { minutes: 61 }, 'options.minutes', ['61']],
    ['minutes not an integer', { minutes: 2.5 }, 'options.minutes', ['2.5']],
    ['an unknown option', { minute: 5 }, 'options.minute', ['Did you mean `minutes`?']],
    ['options not an object', 'hour', 'options', ['an object { minutes? }']],
  ])('refuses %s with a ValidationError naming the field', async (_, options, field, message) => {
    await expectFailure(ctx.queue.getThroughput(options as never), ValidationError, { field, message });
  });
});
