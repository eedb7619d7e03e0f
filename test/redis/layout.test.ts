/**
 * Stores written before job metadata left out null fields and empty arrays (and events a null
 * metadata) keep working: such jobs read, claim, complete and list their events as before,
 * and are rewritten in the lean form the next time a script saves them. New jobs stay lean
 * through every change.
 */
import { describe, expect, it } from 'vitest';
import { pad, redisKeys } from '../../src/backends/redis/keys.js';
import { storeOf, useRedis } from './support.js';
import { failOne } from '../helpers/fail.js';

/** The metadata of a pending job as stores wrote it before: every field, nulls included. */
function oldLayout(meta: Record<string, unknown>): string {
  const full: Record<string, unknown> = {
    lockedAt: null,
    lockedBy: null,
    nextAttemptAt: null,
    pendingReason: null,
    errorHistory: {},
    timeoutMs: null,
    failureReason: null,
    completedAt: null,
    startedAt: null,
    lastRetriedAt: null,
    lastFailedAt: null,
    lastCancelledAt: null,
    tags: {},
    idempotencyKey: null,
    progress: null,
    retryDelay: null,
    retryBackoff: null,
    retryDelayMax: null,
    deadLetterJobType: null,
    deadLetteredAt: null,
    deadLetterJobId: null,
    groupId: null,
    groupTier: null,
    dependsOnJobIds: null,
    dependsOnTags: null,
    waitUntil: null,
    waitTokenId: null,
    ...meta,
  };
  return JSON.stringify(full);
}

describe('redis job metadata written by earlier versions', () => {
  const ctx = useRedis();

  it('stores new jobs without null fields, empty arrays or null event metadata', async () => {
    const q = ctx.queue();
    const id = await q.addJob({ jobType: 'email', payload: { to: 'a' } });
    const keys = redisKeys(ctx.prefix);
    const meta = JSON.parse((await ctx.redis.hget(keys.jobs, String(id)))!) as Record<string, unknown>;
    expect(Object.values(meta)).not.toContain(null);
    expect(meta).not.toHaveProperty('tags');
    expect(meta).not.toHaveProperty('errorHistory');
    const store = storeOf(q);
    const [claimed] = await store.claimJobs({ workerId: 'w', batchSize: 1, now: new Date() });
    await store.completeJobs([{ jobId: claimed!.id, workerId: 'w' }], new Date());
    const events = await ctx.redis.hvals(keys.events);
    expect(events.filter((e) => e.includes('"metadata":null'))).toEqual([]);
    expect((await q.getJobEvents(id)).map((e) => [e.eventType, e.metadata])).toEqual([
      ['added', { jobType: 'email', tags: [], idempotencyKey: null }],
      ['processing', null],
      ['completed', null],
    ]);
  });

  it('keeps a job without null fields or empty arrays through claims, failures, waits, edits and retries', async () => {
    const q = ctx.queue();
    const keys = redisKeys(ctx.prefix);
    const store = storeOf(q);
    const W = 'w';
    /** The job's stored metadata: no top-level field may be null or an empty array or object. */
    const expectLean = async (id: number, step: string) => {
      const meta = JSON.parse((await ctx.redis.hget(keys.jobs, String(id)))!) as Record<string, unknown>;
      const empty = Object.entries(meta).filter(
        ([, v]) => v === null || (typeof v === 'object' && Object.keys(v).length === 0),
      );
      expect(empty, step).toEqual([]);
    };
    const claimOne = async () => {
      const [job] = await store.claimJobs({ workerId: W, batchSize: 1, now: new Date() });
      return job!.id;
    };
    const id = await q.addJob({ jobType: 'email', payload: {}, tags: ['t'], timeoutMs: 60_000, maxAttempts: 2 });
    await q.editJob(id, { tags: [], retryDelay: null, runAt: null });
    await expectLean(id, 'edited');
    expect(await claimOne()).toBe(id);
    await expectLean(id, 'claimed');
    const retryAt = new Date(Date.now() - 1000);
    await failOne(store, { jobId: id, workerId: W, message: 'no', reason: 'handler_error', retryAt, now: new Date() });
    await expectLean(id, 'failed for a retry');
    expect(await claimOne()).toBe(id);
    await expectLean(id, 'claimed again');
    await store.enterWait({
      jobId: id,
      workerId: W,
      waitUntil: new Date(Date.now() - 1000),
      tokenId: null,
      now: new Date(),
    });
    await expectLean(id, 'waiting');
    expect(await claimOne()).toBe(id);
    await expectLean(id, 'resumed');
    await failOne(store, {
      jobId: id,
      workerId: W,
      message: 'no',
      reason: 'handler_error',
      retryAt: null,
      now: new Date(),
    });
    await expectLean(id, 'failed for good');
    await q.retryJob(id);
    await expectLean(id, 'retried');
    expect(await claimOne()).toBe(id);
    expect(await store.completeJobs([{ jobId: id, workerId: W }], new Date())).toEqual([id]);
    await expectLean(id, 'completed');
    expect(await q.getJob(id)).toMatchObject({ status: 'completed', tags: [], lockedBy: null, nextAttemptAt: null });
  });

  it('reads, claims and completes a job stored with every field, and rewrites it lean', async () => {
    const q = ctx.queue();
    const id = await q.addJob({ jobType: 'email', payload: { to: 'a' } });
    const keys = redisKeys(ctx.prefix);
    const before = await q.getJob(id);
    const { addedEventId, ...lean } = JSON.parse((await ctx.redis.hget(keys.jobs, String(id)))!) as Record<
      string,
      unknown
    >;
    await ctx.redis.hset(keys.jobs, String(id), oldLayout(lean));
    // Earlier versions kept the `added` event as an event of its own (with null metadata, earlier still).
    const eventId = addedEventId as number;
    await ctx.redis.hset(
      keys.events,
      String(eventId),
      JSON.stringify({ id: eventId, jobId: id, eventType: 'added', createdAt: lean.createdAt, metadata: null }),
    );
    await ctx.redis.zadd(keys.jobEvents, 0, `${pad(id)}\0${pad(eventId)}`);
    await ctx.redis.zadd(keys.eventTimes, lean.createdAt as number, eventId);

    expect(await q.getJob(id)).toEqual(before);
    const store = storeOf(q);
    const [claimed] = await store.claimJobs({ workerId: 'w', batchSize: 1, now: new Date() });
    expect(claimed).toMatchObject({ id, status: 'processing', tags: [], errorHistory: [], dependsOnJobIds: null });
    expect(await store.completeJobs([{ jobId: id, workerId: 'w' }], new Date())).toEqual([id]);

    const after = await q.getJob(id);
    expect(after).toMatchObject({ status: 'completed', tags: [], errorHistory: [], group: null, lockedBy: null });
    const stored = JSON.parse((await ctx.redis.hget(keys.jobs, String(id)))!) as Record<string, unknown>;
    expect(Object.values(stored)).not.toContain(null);
    expect((await q.getJobEvents(id)).map((e) => [e.eventType, e.metadata])).toEqual([
      ['added', null],
      ['processing', null],
      ['completed', null],
    ]);
  });

  it('claims under a group limit in a store holding claim hints of an earlier layout', async () => {
    const q = ctx.queue();
    const keys = redisKeys(ctx.prefix);
    const grouped = await q.addJob({ jobType: 'email', payload: {}, group: { id: 'g' }, priority: 2 });
    const ungrouped = await q.addJobs([
      { jobType: 'email', payload: {}, group: { id: 'g' }, priority: 1 },
      { jobType: 'email', payload: {} },
    ]);
    // Stores written before kept a hint `<jobType>\0` for every job without a group.
    await ctx.redis.hset(keys.claimHints, String(ungrouped[1]), 'email\0');
    const store = storeOf(q);
    const claimed = await store.claimJobs({ workerId: 'w', batchSize: 3, groupConcurrency: 1, now: new Date() });
    expect(claimed.map((j) => j.id)).toEqual([grouped, ungrouped[1]]);
  });
});
