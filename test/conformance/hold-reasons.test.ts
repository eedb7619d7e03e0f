/**
 * getHoldReasons: why a pending job is not claimed yet (scheduled, waiting on dependencies, in a
 * full group) or that it is due, the same on every backend. The dashboard's run-at column reads it.
 */
import { expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { backendOf } from '../../src/queue.js';
import { forEachBackend, ManualClock } from '../helpers/backends.js';
import { expectFailure } from './assertions.js';
import { claimJob, completeJob } from './job-states.js';

const HOUR_MS = 3_600_000;

forEachBackend('getHoldReasons', (ctx) => {
  it('tells a due job from a scheduled one', async () => {
    const due = await ctx.queue.addJob({ jobType: 'a', payload: {} });
    const past = await ctx.queue.addJob({ jobType: 'a', payload: {}, runAt: new Date(Date.now() - HOUR_MS) });
    const later = await ctx.queue.addJob({ jobType: 'a', payload: {}, runAt: new Date(Date.now() + HOUR_MS) });
    expect(await ctx.queue.getHoldReasons([due, past, later])).toEqual(['due', 'due', 'scheduled']);
  });

  it('follows the clock of the queue', async () => {
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    const queue = ctx.makeQueue({ clock });
    const id = await queue.addJob({ jobType: 'a', payload: {}, runAt: new Date('2030-01-01T01:00:00Z') });
    expect(await queue.getHoldReasons([id])).toEqual(['scheduled']);
    clock.advance(HOUR_MS);
    expect(await queue.getHoldReasons([id])).toEqual(['due']);
  });

  it('names a prerequisite job that is not completed, until it completes', async () => {
    const first = await ctx.queue.addJob({ jobType: 'first', payload: {} });
    const then = await ctx.queue.addJob({ jobType: 'then', payload: {}, dependsOn: { jobIds: [first] } });
    expect(await ctx.queue.getHoldReasons([then])).toEqual(['dependencies']);
    await claimJob(ctx.queue, first);
    expect(await ctx.queue.getHoldReasons([first, then])).toEqual([null, 'dependencies']);
    await backendOf(ctx.queue).completeJobs([{ jobId: first, workerId: 'conformance-worker' }], new Date());
    expect(await ctx.queue.getHoldReasons([then])).toEqual(['due']);
  });

  it('names a tag barrier held by another active job', async () => {
    const holder = await ctx.queue.addJob({ jobType: 'import', payload: {}, tags: ['import:7'] });
    const after = await ctx.queue.addJob({ jobType: 'report', payload: {}, dependsOn: { tags: ['import:7'] } });
    const own = await ctx.queue.addJob({
      jobType: 'self',
      payload: {},
      tags: ['solo'],
      dependsOn: { tags: ['solo'] },
    });
    expect(await ctx.queue.getHoldReasons([after, own])).toEqual(['dependencies', 'due']);
    await completeJob(ctx.queue, holder);
    expect(await ctx.queue.getHoldReasons([after])).toEqual(['due']);
  });

  it('names a scheduled job scheduled even when it also has dependencies', async () => {
    const first = await ctx.queue.addJob({ jobType: 'first', payload: {} });
    const later = await ctx.queue.addJob({
      jobType: 'then',
      payload: {},
      runAt: new Date(Date.now() + HOUR_MS),
      dependsOn: { jobIds: [first] },
    });
    expect(await ctx.queue.getHoldReasons([later])).toEqual(['scheduled']);
  });

  it('names a job a claim found in a full group', async () => {
    const [a, b, c] = await ctx.queue.addJobs([
      { jobType: 'sync', payload: {}, group: { id: 'tenant-1' } },
      { jobType: 'sync', payload: {}, group: { id: 'tenant-1' } },
      { jobType: 'sync', payload: {}, group: { id: 'tenant-2' } },
    ]);
    expect(await ctx.queue.getHoldReasons([a!, b!, c!])).toEqual(['due', 'due', 'due']);
    const claimed = await backendOf(ctx.queue).claimJobs({
      workerId: 'w',
      batchSize: 1,
      jobTypes: ['sync'],
      groupConcurrency: 1,
      now: new Date(),
    });
    expect(claimed.map((j) => j.id)).toEqual([a]);
    // The next claim finds tenant-1 full: b waits for a free slot, c is claimed.
    const next = await backendOf(ctx.queue).claimJobs({
      workerId: 'w',
      batchSize: 5,
      jobTypes: ['sync'],
      groupConcurrency: 1,
      now: new Date(),
    });
    expect(next.map((j) => j.id)).toEqual([c]);
    expect(await ctx.queue.getHoldReasons([a!, b!, c!])).toEqual([null, 'group', null]);
    await backendOf(ctx.queue).completeJobs([{ jobId: a!, workerId: 'w' }], new Date());
    expect(await ctx.queue.getHoldReasons([b!])).toEqual(['due']);
  });

  it('gives null for jobs that are not pending or do not exist, in the order asked', async () => {
    const done = await ctx.queue.addJob({ jobType: 'done', payload: {} });
    const cancelled = await ctx.queue.addJob({ jobType: 'x', payload: {} });
    const pending = await ctx.queue.addJob({ jobType: 'x', payload: {} });
    await completeJob(ctx.queue, done);
    await ctx.queue.cancelJob(cancelled);
    expect(await ctx.queue.getHoldReasons([pending, done, 999_999, cancelled, pending])).toEqual([
      'due',
      null,
      null,
      null,
      'due',
    ]);
    expect(await ctx.queue.getHoldReasons([])).toEqual([]);
  });

  it.each([
    ['not an array', 5, 'jobIds'],
    ['a bad id', [1, 0], 'jobIds[1]'],
    ['too many ids', Array.from({ length: 1001 }, (_, i) => i + 1), 'jobIds'],
  ] as const)('rejects %s with a ValidationError naming it', async (_label, value, field) => {
    await expectFailure(ctx.queue.getHoldReasons(value as unknown as number[]), ValidationError, {
      field,
      message: ['`' + field + '`'],
    });
  });
});
