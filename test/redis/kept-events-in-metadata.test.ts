/**
 * The `processing` event of an attempt and the `completed` event that ends it, kept in the job's
 * metadata (`processingEventId` with `processingEventAt`, `completedEventId`) instead of as
 * events of their own: a claim and a completion write no event entry, the history reads them
 * in id order among the others, a job leaving processing other than completed writes its
 * `processing` event out, and the cleanup removes them from completed jobs in batches walked
 * along `finished`.
 */
import { describe, expect, it } from 'vitest';
import { redisKeys } from '../../src/backends/redis/keys.js';
import { backendOf } from '../../src/queue.js';
import { ManualClock } from '../helpers/backends.js';
import { storeOf, useRedis } from './support.js';
import { failOne } from '../helpers/fail.js';

const T0 = new Date('2030-06-01T12:00:00.000Z');
const DAY = 86_400_000;
const WORKER = 'w1';

describe('the processing and completed events kept in the job metadata (redis)', () => {
  const ctx = useRedis();

  const keys = () => redisKeys(ctx.prefix);
  /** The events stored as entries of their own, of one job, in id order. */
  const storedEvents = async (jobId: number) =>
    (await ctx.redis.hvals(keys().events))
      .map((text) => JSON.parse(text) as { id: number; jobId: number; eventType: string })
      .filter((e) => e.jobId === jobId)
      .sort((a, b) => a.id - b.id)
      .map((e) => e.eventType);
  const history = async (queue: ReturnType<typeof ctx.queue>, jobId: number) =>
    (await queue.getJobEvents(jobId)).map((e) => e.eventType);
  const claim = (queue: ReturnType<typeof ctx.queue>, now: Date, batchSize = 10) =>
    storeOf(queue).claimJobs({ workerId: WORKER, batchSize, now });
  /** A failure of a claimed job, retried at `now`. */
  const fail = (queue: ReturnType<typeof ctx.queue>, jobId: number, now: Date) =>
    failOne(storeOf(queue), { jobId, workerId: WORKER, message: 'boom', reason: 'handler_error', retryAt: now, now });
  const complete = (queue: ReturnType<typeof ctx.queue>, ids: number[], now: Date) =>
    storeOf(queue).completeJobs(
      ids.map((jobId) => ({ jobId, workerId: WORKER })),
      now,
    );

  it('a claim and a completion write no event entry; the history gives both back at their times', async () => {
    const clock = new ManualClock(T0);
    const queue = ctx.queue({ clock });
    const ids = await queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'a', payload: {} },
    ]);
    const claimedAt = new Date(T0.getTime() + 1_000);
    expect((await claim(queue, claimedAt)).map((j) => j.id)).toEqual(ids);
    const completedAt = new Date(T0.getTime() + 2_000);
    expect(await complete(queue, ids, completedAt)).toEqual(ids);
    expect(await ctx.redis.hlen(keys().events)).toBe(0);
    expect(await ctx.redis.zcard(keys().eventTimes)).toBe(0);
    for (const id of ids) {
      const events = await queue.getJobEvents(id);
      expect(events.map((e) => [e.eventType, e.createdAt.getTime(), e.metadata])).toEqual([
        ['added', T0.getTime(), { jobType: 'a', tags: [], idempotencyKey: null }],
        ['processing', claimedAt.getTime(), null],
        ['completed', completedAt.getTime(), null],
      ]);
      expect(events.every((e) => e.jobId === id)).toBe(true);
      expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort((a, b) => a - b));
    }
    const all = (await Promise.all(ids.map((id) => queue.getJobEvents(id)))).flat().map((e) => e.id);
    expect(new Set(all).size).toBe(all.length);
  });

  it('orders the kept events among the events written between them', async () => {
    const clock = new ManualClock(T0);
    const queue = ctx.queue({ clock });
    const id = await queue.addJob({ jobType: 'a', payload: {}, tags: ['t'] });
    await claim(queue, T0);
    expect(await storeOf(queue).prolongJob({ jobId: id, workerId: WORKER, timeoutMs: 60_000, now: T0 })).toBe(true);
    await complete(queue, [id], T0);
    expect(await storedEvents(id)).toEqual(['added', 'prolonged']);
    expect(await history(queue, id)).toEqual(['added', 'processing', 'prolonged', 'completed']);
  });

  it('writes the processing event out when the job fails, waits or is reclaimed, and keeps the next attempt’s', async () => {
    const clock = new ManualClock(T0);
    const queue = ctx.queue({ clock });
    const [failing, waiting, stuck] = (await queue.addJobs([
      { jobType: 'a', payload: {}, maxAttempts: 3 },
      { jobType: 'a', payload: {} },
      { jobType: 'a', payload: {}, maxAttempts: 3 },
    ])) as [number, number, number];
    await claim(queue, T0);
    const store = storeOf(queue);
    await fail(queue, failing, T0);
    await store.enterWait({ jobId: waiting, workerId: WORKER, waitUntil: T0, tokenId: null, now: T0 });
    const later = new Date(T0.getTime() + 3_600_000);
    const reclaimed = await store.reclaimStuckJobs({ now: later, maxProcessingMs: 60_000 });
    expect(reclaimed.requeuedIds).toEqual([stuck]);
    for (const id of [failing, waiting, stuck]) expect(await storedEvents(id)).toContain('processing');

    expect((await claim(queue, later)).map((j) => j.id).sort()).toEqual([failing, waiting, stuck].sort());
    await complete(queue, [failing, waiting, stuck], later);
    expect(await history(queue, failing)).toEqual(['added', 'processing', 'failed', 'processing', 'completed']);
    expect(await history(queue, waiting)).toEqual(['added', 'processing', 'waiting', 'processing', 'completed']);
    expect(await history(queue, stuck)).toEqual(['added', 'processing', 'failed', 'processing', 'completed']);
    // Only the first attempt's processing event is an entry of its own.
    for (const id of [failing, stuck]) expect(await storedEvents(id)).toEqual(['processing', 'failed']);
    expect(await storedEvents(waiting)).toEqual(['processing', 'waiting']);
  });

  it('writes out a processing event an earlier version left kept in a failed job before the next attempt keeps its own', async () => {
    const queue = ctx.queue({ clock: new ManualClock(T0) });
    const id = await queue.addJob({ jobType: 'a', payload: {}, maxAttempts: 3 });
    await claim(queue, T0);
    await fail(queue, id, T0);
    // The store as an earlier version leaves it: its failure does not write the kept event out.
    const [event] = (await queue.getJobEvents(id)).filter((e) => e.eventType === 'processing');
    const k = keys();
    await ctx.redis.hdel(k.events, String(event!.id));
    await ctx.redis.zrem(k.eventTimes, String(event!.id));
    const pad = (n: number) => String(n).padStart(15, '0');
    expect(await ctx.redis.zrem(k.jobEvents, `${pad(id)}\0${pad(event!.id)}`)).toBe(1);
    const metadata = JSON.parse((await ctx.redis.hget(k.jobs, String(id)))!) as Record<string, unknown>;
    metadata.processingEventId = event!.id;
    metadata.processingEventAt = T0.getTime();
    await ctx.redis.hset(k.jobs, String(id), JSON.stringify(metadata));
    expect(await storedEvents(id)).toEqual(['failed']);

    await claim(queue, T0);
    await complete(queue, [id], T0);
    expect(await storedEvents(id)).toEqual(['processing', 'failed']);
    const history = await queue.getJobEvents(id);
    expect(history.map((e) => e.eventType)).toEqual(['added', 'processing', 'failed', 'processing', 'completed']);
    expect(history[1]!.id).toBe(event!.id);
  });

  it('cleans up the kept events of jobs completed before the cutoff, in batches, rewriting only their metadata', async () => {
    const clock = new ManualClock(T0);
    const queue = ctx.queue({ clock });
    // Twelve jobs completed in one call share their time in `finished`; batches of 5 cut
    // across them.
    const old = await queue.addJobs(Array.from({ length: 12 }, () => ({ jobType: 'a', payload: {} })));
    await claim(queue, T0, 20);
    await complete(queue, old, T0);
    // Claimed before the cutoff, completed after it: its processing event stays with its
    // completion (never removed before its time; see cleanup-kept-events.lua).
    const straddling = await queue.addJob({ jobType: 'a', payload: {} });
    await claim(queue, T0);
    const later = new Date(T0.getTime() + 2 * DAY);
    await complete(queue, [straddling], later);
    const cutoff = new Date(T0.getTime() + DAY);
    const cleanup = (olderThan: Date) => backendOf(queue).cleanupOldJobEvents({ olderThan, batchSize: 5 });

    // 12 x (added, processing, completed); the straddling job's added event too.
    expect(await cleanup(cutoff)).toBe(12 * 3 + 1);
    for (const id of old) expect(await queue.getJobEvents(id)).toEqual([]);
    expect(await history(queue, straddling)).toEqual(['processing', 'completed']);
    for (const id of old) {
      const job = (await queue.getJob(id))!;
      expect(job.status).toBe('completed');
      expect(job.completedAt).toEqual(T0);
      const text = (await ctx.redis.hget(keys().jobs, String(id)))!;
      expect(text).not.toMatch(/processingEventId|completedEventId/);
    }
    expect(await cleanup(cutoff)).toBe(0);
    expect(await cleanup(new Date(later.getTime() + 1))).toBe(2);
    expect(await queue.getJobEvents(straddling)).toEqual([]);
  });

  it('keeps the kept events of a job that completes after a cleanup with a clock behind its cutoff', async () => {
    const clock = new ManualClock(new Date(T0.getTime() + 2 * DAY));
    const queue = ctx.queue({ clock });
    await queue.addJob({ jobType: 'a', payload: {} });
    const [first] = await claim(queue, clock.now());
    await complete(queue, [first!.id], clock.now());
    expect(
      await backendOf(queue).cleanupOldJobEvents({ olderThan: new Date(T0.getTime() + 3 * DAY), batchSize: 10 }),
    ).toBe(3);
    // A job finished at an earlier time than the walk has passed: never counted as removed
    // unless it really was; it stays until the job itself goes.
    clock.set(T0);
    const backdated = await queue.addJob({ jobType: 'a', payload: {} });
    await claim(queue, T0);
    await complete(queue, [backdated], T0);
    expect(await history(queue, backdated)).toEqual(['added', 'processing', 'completed']);
    expect(
      await backendOf(queue).cleanupOldJobEvents({ olderThan: new Date(T0.getTime() + 3 * DAY), batchSize: 10 }),
    ).toBe(1);
    expect(await history(queue, backdated)).toEqual(['processing', 'completed']);
  });
});
