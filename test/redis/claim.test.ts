/**
 * How the Redis claim walks the ready jobs (claim-jobs.lua): with a type filter it reads only
 * those types, so a backlog of other types never hides a wanted job; jobs of a full group are
 * set aside (`parked`, see parked.test.ts) without holding up the rest; jobs waiting for a
 * prerequisite are kept in `blocked`, out of the walk, until it completes or is removed.
 */
import { describe, expect, it } from 'vitest';
import { pad, redisKeys } from '../../src/backends/redis/keys.js';
import { ManualClock } from '../../src/clock.js';
import { backendOf } from '../../src/queue.js';
import { expectConsistent } from './consistency.js';
import { useRedis } from './support.js';
import { failOne } from '../helpers/fail.js';

const WORKER = 'w1';

describe('redis claim walk', () => {
  const ctx = useRedis();

  it('finds a wanted job type behind more ready jobs of other types than one walk examines', async () => {
    const q = ctx.queue();
    // Older and of higher priority: all of them come first in `ready`.
    for (let i = 0; i < 6; i++) {
      await q.addJobs(
        Array.from({ length: 1000 }, (_, j) => ({ jobType: 'backlog', payload: { n: i * 1000 + j }, priority: 5 })),
      );
    }
    const wanted = await q.addJob({ jobType: 'wanted', payload: {} });
    const claimed = await backendOf(q).claimJobs({
      workerId: WORKER,
      batchSize: 5,
      jobTypes: ['wanted', 'absent'],
      now: new Date(),
    });
    expect(claimed.map((j) => j.id)).toEqual([wanted]);
  });

  it('merges several wanted types in priority order, then id order', async () => {
    const q = ctx.queue();
    const [a1, b1, a2, b2, c1] = await q.addJobs([
      { jobType: 'a', payload: 1, priority: 1 },
      { jobType: 'b', payload: 2, priority: 3 },
      { jobType: 'a', payload: 3, priority: 3 },
      { jobType: 'b', payload: 4, priority: -2 },
      { jobType: 'c', payload: 5, priority: 10 },
    ]);
    const claimed = await backendOf(q).claimJobs({
      workerId: WORKER,
      batchSize: 10,
      jobTypes: ['a', 'b'],
      now: new Date(),
    });
    expect(claimed.map((j) => j.id)).toEqual([b1, a2, a1, b2]);
    expect((await q.getJob(c1!))?.status).toBe('pending');
  });

  it('skips the jobs of a full group and claims the ones behind them', async () => {
    const q = ctx.queue();
    const [g1, , , free] = await q.addJobs([
      { jobType: 'x', payload: 1, group: { id: 'g' }, priority: 9 },
      { jobType: 'x', payload: 2, group: { id: 'g' }, priority: 9 },
      { jobType: 'x', payload: 3, group: { id: 'g' }, priority: 9 },
      { jobType: 'x', payload: 4 },
    ]);
    const first = await backendOf(q).claimJobs({
      workerId: WORKER,
      batchSize: 10,
      groupConcurrency: 1,
      now: new Date(),
    });
    expect(first.map((j) => j.id)).toEqual([g1, free]);
    expect(
      await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 10, groupConcurrency: 1, now: new Date() }),
    ).toEqual([]);
    expect(await ctx.redis.hget(`${ctx.prefix}{q}:groups`, 'g')).toBe('1');
  });

  it('moves a job whose priority was edited to its new place in the typed order', async () => {
    const q = ctx.queue();
    const [low, high] = await q.addJobs([
      { jobType: 'a', payload: 1, priority: 1 },
      { jobType: 'a', payload: 2, priority: 2 },
    ]);
    await q.editJob(low!, { priority: 3 });
    const claimed = await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 1, jobTypes: ['a'], now: new Date() });
    expect(claimed.map((j) => j.id)).toEqual([low]);
    const next = await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 5, jobTypes: ['a'], now: new Date() });
    expect(next.map((j) => j.id)).toEqual([high]);
  });

  it('claims due jobs queued behind more jobs waiting for a prerequisite than one walk examines', async () => {
    const q = ctx.queue();
    const [prerequisite] = await q.addJobs([
      { jobType: 'x', payload: 0, runAt: new Date(Date.now() + 86_400_000), priority: 9 },
    ]);
    for (let i = 0; i < 6; i++) {
      await q.addJobs(
        Array.from({ length: 1000 }, (_, j) => ({
          jobType: 'x',
          payload: i * 1000 + j,
          priority: 5,
          dependsOn: { jobIds: [prerequisite!] },
        })),
      );
    }
    const due = await q.addJob({ jobType: 'x', payload: 'due' });
    const claimed = await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 5, now: new Date() });
    expect(claimed.map((j) => j.id)).toEqual([due]);
  });

  it('moves a job waiting for a prerequisite out of `ready` (as an earlier layout kept it) and back when that completes', async () => {
    const q = ctx.queue();
    const k = redisKeys(ctx.prefix);
    const [prerequisite, dependent, free] = await q.addJobs([
      { jobType: 'x', payload: 1 },
      { jobType: 'x', payload: 2, priority: 5, dependsOn: { jobIds: [-1] } },
      { jobType: 'x', payload: 3, priority: 1 },
    ]);
    // The earlier layout: the dependent in `ready` and `ready-by-type`, no `blocked`.
    await ctx.redis.zrem(k.blocked, pad(dependent!));
    await ctx.redis.zadd(k.ready, -5, pad(dependent!));
    await ctx.redis.zadd(k.readyByType, 0, `x\0${String(2147483647 - 5).padStart(10, '0')}\0${pad(dependent!)}`);

    const first = await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 10, now: new Date() });
    expect(first.map((j) => j.id)).toEqual([free, prerequisite]);
    expect(await ctx.redis.zscore(k.blocked, pad(dependent!))).not.toBeNull();
    expect(await ctx.redis.zscore(k.ready, pad(dependent!))).toBeNull();
    await expectConsistent(ctx.redis, ctx.prefix);

    await backendOf(q).completeJobs([{ jobId: prerequisite!, workerId: WORKER }], new Date());
    expect(await ctx.redis.zscore(k.blocked, pad(dependent!))).toBeNull();
    const next = await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 10, now: new Date() });
    expect(next.map((j) => j.id)).toEqual([dependent]);
    await expectConsistent(ctx.redis, ctx.prefix);
  });

  it('releases a job waiting for a prerequisite that is cleaned up', async () => {
    const clock = new ManualClock(Date.UTC(2030, 0, 1));
    const q = ctx.queue({ clock });
    const [prerequisite, dependent] = await q.addJobs([
      { jobType: 'x', payload: 1, maxAttempts: 1 },
      { jobType: 'x', payload: 2, dependsOn: { jobIds: [-1] } },
    ]);
    await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 1, now: clock.now() });
    await failOne(backendOf(q), {
      jobId: prerequisite!,
      workerId: WORKER,
      message: 'boom',
      reason: 'handler_error',
      retryAt: null,
      now: clock.now(),
    });
    // Cancelled with its prerequisite, then retried: it waits for a prerequisite that ended failed.
    await q.retryJob(dependent!);
    expect(await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 5, now: clock.now() })).toEqual([]);
    clock.advance(40 * 86_400_000);
    await q.cleanupOldJobs(30);
    const claimed = await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 5, now: clock.now() });
    expect(claimed.map((j) => j.id)).toEqual([dependent]);
    await expectConsistent(ctx.redis, ctx.prefix);
  });
});
