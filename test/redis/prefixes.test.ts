/**
 * Key prefixes (SPEC §2.1): queues with different prefixes on one Redis are fully separate, and
 * every key a queue writes lives under its prefix with the `{q}` hash tag (one Redis Cluster
 * slot for all of a queue's keys).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, deleteKeys, uniqueName } from '../helpers/backends.js';
import { ManualClock } from '../../src/clock.js';
import { backendOf, initJobQueue } from '../../src/queue.js';
import { storeOf, useRedis } from './support.js';
import { failOne } from '../helpers/fail.js';

const WORKER = 'w1';

describe('queues with different prefixes on one Redis', () => {
  const ctx = useRedis();

  it('never see, cancel, claim or clean up each other’s jobs', async () => {
    const a = ctx.queue();
    const b = ctx.queue({ prefix: `${uniqueName('qredis')}:` });
    const [a1, a2] = await a.addJobs([
      { jobType: 'a-type', payload: { from: 'a' }, tags: ['shared'], idempotencyKey: 'same-key' },
      { jobType: 'a-type', payload: { from: 'a', n: 2 }, tags: ['shared'] },
    ]);
    const b1 = await b.addJob({
      jobType: 'b-type',
      payload: { from: 'b' },
      tags: ['shared'],
      idempotencyKey: 'same-key',
    });

    // The same idempotency key is free in each namespace: b got a job of its own.
    expect((await b.getJob(b1))?.payload).toEqual({ from: 'b' });
    expect((await a.getJobs()).map((j) => j.jobType)).toEqual(['a-type', 'a-type']);
    expect((await b.getJobsByTags(['shared'])).map((j) => j.payload)).toEqual([{ from: 'b' }]);

    // Claiming in a takes only a's jobs.
    const claimed = await backendOf(a).claimJobs({ workerId: WORKER, batchSize: 10, now: new Date() });
    expect(claimed.map((j) => j.jobType)).toEqual(['a-type', 'a-type']);
    expect((await b.getJob(b1))?.status).toBe('pending');
    await backendOf(a).completeJobs([{ jobId: a1!, workerId: WORKER }], new Date());
    await failOne(backendOf(a), {
      jobId: a2!,
      workerId: WORKER,
      message: 'boom',
      reason: 'handler_error',
      retryAt: null,
      now: new Date(),
    });

    // Cancelling everything in b leaves a alone, and the reverse.
    expect(await b.cancelAllUpcomingJobs()).toBe(1);
    expect(await a.cancelAllUpcomingJobs()).toBe(0);
    expect((await a.getJob(a1!))?.status).toBe('completed');

    // Cleanup in a removes a's finished jobs only.
    expect(await a.cleanupOldJobs(0)).toBe(2);
    expect(await a.getJobs()).toEqual([]);
    expect((await b.getJob(b1))?.status).toBe('cancelled');
    expect(await b.getJobEvents(b1)).toHaveLength(2);
    expect(await ctx.keys(ctx.prefix)).not.toContain(`${ctx.prefix}{q}:jobs`);
  });
});

describe('keys written by a queue', () => {
  // A logical database of its own, so that every key present afterwards was written by this
  // workload (other test files use database 0).
  const DB = 9;
  let raw: Redis;
  beforeAll(async () => {
    raw = new Redis(REDIS_URL, { db: DB });
  });
  afterAll(async () => {
    await raw.quit();
  });

  it('all start with the prefix followed by the {q} hash tag', async () => {
    const prefix = `${uniqueName('qkeys')}:`;
    const clock = new ManualClock(Date.UTC(2030, 0, 1));
    const before = new Set(await scanAll(raw));
    const q = initJobQueue({ backend: 'redis', redisConfig: { url: REDIS_URL, db: DB, keyPrefix: prefix }, clock });
    try {
      const unsubscribe = await backendOf(q).subscribeJobAvailable(() => {});
      const [first, second, , grouped] = await q.addJobs([
        {
          jobType: 'work',
          payload: { n: 1 },
          tags: ['t1', 't2'],
          idempotencyKey: 'k1',
          deadLetterJobType: 'dead',
          maxAttempts: 1,
        },
        { jobType: 'work', payload: { n: 2 }, dependsOn: { jobIds: [-1], tags: ['t9'] }, tags: ['t9'] },
        { jobType: 'later', payload: { n: 3 }, runAt: new Date(Date.UTC(2031, 0, 1)) },
        { jobType: 'work', payload: { n: 4 }, group: { id: 'g1' }, timeoutMs: 1000 },
      ]);
      await q.editJob(second!, { priority: 5, tags: ['t9', 't10'] });
      const claimed = await backendOf(q).claimJobs({
        workerId: WORKER,
        batchSize: 5,
        groupConcurrency: 1,
        now: clock.now(),
      });
      expect(claimed.map((j) => j.id).sort()).toEqual([first, grouped].sort());
      await backendOf(q).setProgress({ jobId: grouped!, workerId: WORKER, progress: 50, now: clock.now() });
      await backendOf(q).setOutput({ jobId: grouped!, workerId: WORKER, output: { partial: true }, now: clock.now() });
      await backendOf(q).prolongJob({ jobId: grouped!, workerId: WORKER, timeoutMs: 5000, now: clock.now() });
      // Ends failed for good: dead letter, cascade to `second`.
      await failOne(backendOf(q), {
        jobId: first!,
        workerId: WORKER,
        message: 'boom',
        reason: 'handler_error',
        retryAt: null,
        now: clock.now(),
      });
      clock.advance(60 * 60_000);
      expect(await q.reclaimStuckJobs(1)).toBe(1);
      await q.retryJob(second!);
      // Durable waits, tokens and cron schedules write keys of their own.
      const store = storeOf(q);
      await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 5, jobTypes: ['work'], now: clock.now() });
      await store.saveStep({ jobId: grouped!, workerId: WORKER, stepName: 'one', value: [1], now: clock.now() });
      const { id: tokenId } = await q.createToken({ timeout: '1m' });
      await store.enterWait({ jobId: grouped!, workerId: WORKER, waitUntil: null, tokenId, now: clock.now() });
      await store.enterWait({
        jobId: second!,
        workerId: WORKER,
        waitUntil: new Date(clock.now().getTime() + 1000),
        tokenId: null,
        now: clock.now(),
      });
      const { id: completed } = await q.createToken();
      await q.completeToken(completed, { ok: 1 });
      await q.addCronJob({
        scheduleName: 'every-minute',
        cronExpression: '* * * * *',
        jobType: 'cron',
        payload: { n: 5 },
      });
      clock.advance(2 * 60_000);
      expect(await q.expireTimedOutTokens()).toBe(1);
      expect(await q.enqueueDueCronJobs()).toBe(1);
      clock.advance(40 * 86_400_000);
      await q.cleanupOldJobs(30);
      await q.cleanupOldJobEvents(30);
      await unsubscribe();

      const written = (await scanAll(raw)).filter((k) => !before.has(k));
      expect(written.length).toBeGreaterThan(10);
      for (const name of [
        'steps',
        'step-names',
        'tokens',
        'token-outputs',
        'cron',
        'cron-due',
        'cron-names',
        'cron-payloads',
      ]) {
        expect(written, name).toContain(`${prefix}{q}:${name}`);
      }
      for (const key of written) {
        expect(key.startsWith(`${prefix}{q}:`), key).toBe(true);
      }
    } finally {
      await q.close();
      await deleteKeys(raw, `${prefix}*`);
    }
  });
});

async function scanAll(client: Redis): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await client.scan(cursor, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}
