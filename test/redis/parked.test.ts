/**
 * Parked jobs on Redis (includes/parked.lua, includes/unpark.lua): a claim moves the due jobs
 * it finds in a full group or behind a tag barrier from `ready` to `parked`, and the script that
 * ends the block puts back what may now run. After every step the index checker also verifies
 * that each parked job is still held back by something whose end will release it.
 */
import { describe, expect, it } from 'vitest';
import { pad, redisKeys } from '../../src/backends/redis/keys.js';
import type { JobQueue } from '../../src/index.js';
import { backendOf } from '../../src/queue.js';
import { expectConsistent } from './consistency.js';
import { useRedis } from './support.js';
import { failOne } from '../helpers/fail.js';

const W = 'w';
const NOW = new Date('2030-01-01T00:00:00.000Z');
const EARLIER = new Date(NOW.getTime() - 60_000);
const LATER = new Date(NOW.getTime() + 3_600_000);

describe('redis parked jobs', () => {
  const ctx = useRedis();

  /** The job types in `parked`, in member order. */
  async function parkedTypes(q: JobQueue): Promise<string[]> {
    const members = await ctx.redis.zrange(redisKeys(ctx.prefix).parked, 0, '-1');
    const jobs = await Promise.all(members.map((m) => q.getJob(Number(m.slice(-15)))));
    return jobs.map((j) => j!.jobType);
  }

  function claimer(q: JobQueue, options: { groupConcurrency?: number; jobTypes?: string[] } = {}) {
    return async (batchSize = 10, now = NOW) => {
      const jobs = await backendOf(q).claimJobs({ workerId: W, batchSize, now, ...options });
      await expectConsistent(ctx.redis, ctx.prefix);
      return jobs.map((j) => j.jobType);
    };
  }

  const check = () => expectConsistent(ctx.redis, ctx.prefix);
  const complete = (q: JobQueue, ...ids: number[]) =>
    backendOf(q).completeJobs(
      ids.map((jobId) => ({ jobId, workerId: W })),
      NOW,
    );
  const fail = (q: JobQueue, jobId: number, retryAt: Date | null) =>
    failOne(backendOf(q), { jobId, workerId: W, message: 'no', reason: 'handler_error', retryAt, now: NOW });

  /** The ids in `parked`, in member order. */
  async function parkedIds(): Promise<number[]> {
    return (await ctx.redis.zrange(redisKeys(ctx.prefix).parked, 0, '-1')).map((m) => Number(m.slice(-15)));
  }

  /** Group g (limit 1): `a` running, `b` and `c` (of `types`, b first) parked. */
  async function fullGroup(q: JobQueue, types = ['work', 'work', 'work']) {
    const group = { id: 'g' };
    const [a, b, c] = (await q.addJobs([
      { jobType: types[0]!, payload: {}, group, priority: 9, runAt: EARLIER },
      { jobType: types[1]!, payload: {}, group, priority: 5, runAt: EARLIER },
      { jobType: types[2]!, payload: {}, group, priority: 1, runAt: EARLIER },
    ])) as [number, number, number];
    const claim = async (batchSize = 10, now = NOW, jobTypes?: string[]) => {
      const jobs = await backendOf(q).claimJobs({ workerId: W, batchSize, now, groupConcurrency: 1, jobTypes });
      await expectConsistent(ctx.redis, ctx.prefix);
      return jobs.map((j) => j.id);
    };
    expect(await claim(1)).toEqual([a]);
    expect(await claim()).toEqual([]);
    expect(await parkedIds()).toEqual([b, c]);
    return { a, b, c, claim };
  }

  it('gives a full group back one job per freed slot, and the next when the one let through leaves otherwise', async () => {
    const q = ctx.queue();
    const { a, b, c, claim } = await fullGroup(q);
    await complete(q, a);
    expect(await parkedIds()).toEqual([c]);
    await check();
    await q.cancelJob(b); // b leaves `ready` without running: c takes its turn
    expect(await parkedIds()).toEqual([]);
    expect(await claim()).toEqual([c]);
  });

  it('gives a full group back the next job when the one let through is edited to run later', async () => {
    const q = ctx.queue();
    const { a, b, c, claim } = await fullGroup(q);
    await complete(q, a);
    await q.editJob(b, { runAt: LATER });
    expect(await parkedIds()).toEqual([]);
    expect(await claim()).toEqual([c]);
  });

  it('gives a full group back a job when its running job waits, fails, or is reclaimed', async () => {
    const q = ctx.queue();
    const { a, b, c, claim } = await fullGroup(q);
    await backendOf(q).enterWait({ jobId: a, workerId: W, waitUntil: LATER, tokenId: null, now: NOW });
    expect(await parkedIds()).toEqual([c]);
    expect(await claim()).toEqual([b]);
    await fail(q, b, LATER);
    expect(await parkedIds()).toEqual([]);
    expect(await claim()).toEqual([c]);
    const later = new Date(LATER.getTime() - 1);
    const reclaimed = await backendOf(q).reclaimStuckJobs({ maxProcessingMs: 1_000, now: later });
    expect(reclaimed.requeuedIds).toEqual([c]);
    await check();
    expect(await claim(10, later)).toEqual([c]);
  });

  it('keeps the parked member in step with an edited priority', async () => {
    const q = ctx.queue();
    const { a, b, c, claim } = await fullGroup(q);
    await q.editJob(c, { priority: 7 });
    expect(await parkedIds()).toEqual([b]);
    expect(await claim()).toEqual([]);
    expect(await parkedIds()).toEqual([c, b]);
    await complete(q, a);
    expect(await claim()).toEqual([c]);
  });

  it('gives back the best job of each type of a group, so a claim limited to one type finds its own', async () => {
    const q = ctx.queue();
    const { a, b, c, claim } = await fullGroup(q, ['a', 'b', 'c']);
    await complete(q, a);
    expect(await parkedIds()).toEqual([]);
    expect(await claim(10, NOW, ['c'])).toEqual([c]);
    expect(await claim()).toEqual([]);
    expect(await parkedIds()).toEqual([b]);
  });

  /** Holders h1 (tags t, u) and h2 (tag t) running; `drain` (dependsOn.tags [t]) parked. */
  async function barrier(q: JobQueue, drainTags: string[] = ['t']) {
    const [h1, h2, drain] = await q.addJobs([
      { jobType: 'h1', payload: {}, tags: ['t', 'u'], priority: 9, runAt: EARLIER },
      { jobType: 'h2', payload: {}, tags: ['t'], priority: 8, runAt: EARLIER },
      { jobType: 'drain', payload: {}, dependsOn: { tags: drainTags }, runAt: EARLIER },
    ]);
    const claim = claimer(q);
    expect(await claim(2)).toEqual(['h1', 'h2']);
    expect(await claim()).toEqual([]);
    expect(await parkedTypes(q)).toEqual(['drain']);
    return { h1: h1!, h2: h2!, drain: drain!, claim };
  }

  it('puts a barrier job back when its last holder ends, also when both end in one call', async () => {
    const q = ctx.queue();
    const { h1, h2, claim } = await barrier(q);
    await complete(q, h1, h2);
    expect(await parkedTypes(q)).toEqual([]);
    expect(await claim()).toEqual(['drain']);
  });

  it('keeps a barrier job parked while a holder is active: one ends, one waits, then it fails for a retry', async () => {
    const q = ctx.queue();
    const { h1, h2, claim } = await barrier(q);
    await complete(q, h1);
    await backendOf(q).enterWait({ jobId: h2, workerId: W, waitUntil: LATER, tokenId: null, now: NOW });
    expect(await parkedTypes(q)).toEqual(['drain']);
    expect(await claim()).toEqual([]);
    expect(await claim(10, LATER)).toEqual(['h2']);
    await fail(q, h2, new Date(LATER.getTime() + 60_000));
    expect(await claim(10, LATER)).toEqual(['drain']);
  });

  it('puts a barrier job back when its holders lose the tags, and cancels it with a cancelled holder', async () => {
    const q = ctx.queue();
    const pending = await q.addJob({ jobType: 'holder', payload: {}, tags: ['x', 'y'], runAt: LATER });
    const [kept, cancelled] = await q.addJobs([
      { jobType: 'kept', payload: {}, dependsOn: { tags: ['y', 'x'] }, runAt: EARLIER },
      { jobType: 'cancelled', payload: {}, dependsOn: { tags: ['x'] }, runAt: EARLIER },
    ]);
    const claim = claimer(q);
    expect(await claim()).toEqual([]);
    expect(await parkedTypes(q)).toEqual(['cancelled', 'kept']);
    await q.editJob(pending, { tags: ['x'] });
    expect(await parkedTypes(q)).toEqual(['cancelled']);
    await q.cancelJob(pending);
    await check();
    expect((await q.getJob(cancelled!))?.status).toBe('cancelled');
    expect(await claim()).toEqual(['kept']);
    expect((await q.getJob(kept!))?.status).toBe('processing');
  });

  it('puts back a barrier job that carries the tags itself once no other job does', async () => {
    const q = ctx.queue();
    const odd = 'a\u0001b\u00ff';
    const [holder, self] = await q.addJobs([
      { jobType: 'holder', payload: {}, tags: [odd, 'a'], runAt: EARLIER },
      { jobType: 'self', payload: {}, tags: [odd, 'a'], dependsOn: { tags: ['a', odd] }, runAt: EARLIER },
    ]);
    const claim = claimer(q);
    expect(await claim()).toEqual(['holder']);
    expect(await parkedTypes(q)).toEqual(['self']);
    await complete(q, holder!);
    expect(await claim()).toEqual(['self']);
    expect((await q.getJob(self!))?.status).toBe('processing');
  });

  it('puts back the jobs of a long barrier a slice per script, and claims the rest past the first slice', async () => {
    const q = ctx.queue();
    const k = redisKeys(ctx.prefix);
    const holder = await q.addJob({ jobType: 'holder', payload: {}, tags: ['t'], priority: 9, runAt: EARLIER });
    const claim = claimer(q);
    expect(await claim(1)).toEqual(['holder']);
    await q.addJobs(
      Array.from({ length: 300 }, (_, i) => ({
        jobType: 'drain',
        payload: { i },
        dependsOn: { tags: ['t'] },
        runAt: EARLIER,
      })),
    );
    expect(await claim()).toEqual([]);
    expect(await ctx.redis.zcard(k.parked)).toBe(300);
    await complete(q, holder);
    // 250 back in `ready`, 50 parked behind the barrier left open.
    expect(await ctx.redis.zcard(k.ready)).toBe(250);
    expect(await ctx.redis.zrangebylex(k.parked, '[o\0', '(o\x01')).toEqual([`o\0${Buffer.from('t').toString('hex')}`]);
    await check();
    expect(await claim(400)).toHaveLength(300);
    expect(await ctx.redis.zcard(k.parked)).toBe(0);
  });

  it('sets aside the blocked jobs a store of an earlier layout kept in `ready`', async () => {
    const q = ctx.queue();
    const k = redisKeys(ctx.prefix);
    const [holder, group1] = await q.addJobs([
      { jobType: 'holder', payload: {}, tags: ['t'], runAt: LATER },
      { jobType: 'running', payload: {}, group: { id: 'g' }, runAt: EARLIER },
    ]);
    const claim = claimer(q, { groupConcurrency: 1 });
    expect(await claim()).toEqual(['running']);
    const blocked = await q.addJobs([
      { jobType: 'barrier', payload: {}, dependsOn: { tags: ['t'] }, priority: 5, runAt: EARLIER },
      { jobType: 'group', payload: {}, group: { id: 'g' }, priority: 5, runAt: EARLIER },
    ]);
    await q.addJob({ jobType: 'free', payload: {}, runAt: EARLIER });
    expect(await ctx.redis.exists(k.parked)).toBe(0); // nothing parked yet: the key does not exist
    expect(await claim()).toEqual(['free']);
    for (const id of blocked) expect(await ctx.redis.zscore(k.ready, pad(id))).toBeNull();
    expect(await parkedTypes(q)).toEqual(['barrier', 'group']);
    await complete(q, group1!);
    await q.editJob(holder!, { tags: [] });
    expect(await claim()).toEqual(['barrier', 'group']);
  });
});
