/**
 * Durable waits on Redis (enter-wait, save-step, the token scripts): how a waiting job sits in
 * the indexes, the atomic token check that prevents a lost wake-up, resumes that consume no
 * attempt, and step data kept exact (stored verbatim, one field per step).
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { backendOf, initJobQueue } from '../../src/queue.js';
import { REDIS_URL } from '../helpers/backends.js';
import { NotFoundError } from '../../src/errors.js';
import { pad } from '../../src/backends/redis/keys.js';
import { expectConsistent } from './consistency.js';
import { storeOf, useRedis, wakeUps } from './support.js';
import { waitFor } from '../helpers/wait.js';
import { failOne } from '../helpers/fail.js';

const WORKER = 'w1';
const START = Date.UTC(2030, 0, 1);

/** Values cjson would change: long floats, huge and tiny numbers, empty arrays, unicode. */
const TRICKY = {
  third: 1 / 3,
  huge: 1e300,
  tiny: 5e-324,
  maxSafe: 9007199254740991,
  negative: -123456789.98765433,
  nested: [[1, [2.5, []]], { a: { b: [{}] } }],
  emptyArray: [],
  unicode: 'héllo ✓ 日本語 🎉 \u2028 "q" \\ / <t>',
  nothing: null,
};

describe('redis durable waits', () => {
  const ctx = useRedis();

  /** A queue on a manual clock with one job claimed by WORKER. */
  async function claimedJob(options: { group?: string; tags?: string[] } = {}) {
    const clock = new ManualClock(START);
    const q = ctx.queue({ clock });
    const id = await q.addJob({
      jobType: 't',
      payload: { n: 1 },
      ...(options.group ? { group: { id: options.group } } : {}),
      ...(options.tags ? { tags: options.tags } : {}),
    });
    const [job] = await backendOf(q).claimJobs({
      workerId: WORKER,
      batchSize: 1,
      groupConcurrency: 1,
      now: clock.now(),
    });
    expect(job?.id).toBe(id);
    return { q, clock, id, store: storeOf(q) };
  }

  const key = (name: string) => `${ctx.prefix}{q}:${name}`;
  const check = () => expectConsistent(ctx.redis, ctx.prefix);

  describe('timed waits', () => {
    it('park the job in `scheduled` at waitUntil, release the lock and group slot, and write a `waiting` event', async () => {
      const { q, clock, id, store } = await claimedJob({ group: 'g' });
      const waitUntil = new Date(START + 60_000);
      expect(
        await store.enterWait({ jobId: id, workerId: WORKER, waitUntil, tokenId: null, now: clock.now() }),
      ).toEqual({
        status: 'waiting',
      });
      const job = await q.getJob(id);
      expect(job).toMatchObject({
        status: 'waiting',
        waitUntil,
        waitTokenId: null,
        locked_by: null,
        locked_at: null,
        attempts: 1,
      });
      expect(Number(await ctx.redis.zscore(key('scheduled'), pad(id)))).toBe(waitUntil.getTime());
      expect(await ctx.redis.zscore(key('processing'), pad(id))).toBeNull();
      expect(await ctx.redis.hget(key('groups'), 'g')).toBeNull();
      const events = await q.getJobEvents(id);
      expect(events.at(-1)).toMatchObject({
        eventType: 'waiting',
        metadata: { waitUntil: waitUntil.toISOString(), tokenId: null },
      });
      await check();
    });

    it('resume through the claim once due, without adding an attempt, clearing the wait fields', async () => {
      const { q, clock, id, store } = await claimedJob();
      await store.enterWait({
        jobId: id,
        workerId: WORKER,
        waitUntil: new Date(START + 60_000),
        tokenId: null,
        now: clock.now(),
      });
      clock.advance(59_999);
      expect(await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 5, now: clock.now() })).toEqual([]);
      clock.advance(1);
      const [resumed] = await backendOf(q).claimJobs({ workerId: 'w2', batchSize: 5, now: clock.now() });
      expect(resumed).toMatchObject({
        id,
        status: 'processing',
        attempts: 1,
        locked_by: 'w2',
        waitUntil: null,
        pendingReason: null,
      });
      await check();
    });

    it('a wait already over makes the job ready at once', async () => {
      const { q, clock, id, store } = await claimedJob();
      await store.enterWait({
        jobId: id,
        workerId: WORKER,
        waitUntil: new Date(START - 1),
        tokenId: null,
        now: clock.now(),
      });
      expect(await ctx.redis.zscore(key('ready'), pad(id))).not.toBeNull();
      expect((await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 5, now: clock.now() }))[0]?.attempts).toBe(1);
    });

    it('are fenced: another worker, or a job no longer processing, gets `lost` and nothing changes', async () => {
      const { q, clock, id, store } = await claimedJob();
      const before = await q.getJob(id);
      const wait = {
        jobId: id,
        waitUntil: new Date(START + 1000),
        tokenId: null,
        step: { name: 's', value: 1 },
        now: clock.now(),
      };
      expect(await store.enterWait({ ...wait, workerId: 'other' })).toEqual({ status: 'lost' });
      expect(await q.getJob(id)).toEqual(before);
      await backendOf(q).completeJobs([{ jobId: id, workerId: WORKER }], clock.now());
      expect(await store.enterWait({ ...wait, workerId: WORKER })).toEqual({ status: 'lost' });
      expect((await q.getJob(id))?.status).toBe('completed');
    });

    it('cancelling a waiting job takes it out of `scheduled`', async () => {
      const { q, clock, id, store } = await claimedJob();
      await store.enterWait({
        jobId: id,
        workerId: WORKER,
        waitUntil: new Date(START + 1000),
        tokenId: null,
        now: clock.now(),
      });
      await q.cancelJob(id);
      expect((await q.getJob(id))?.status).toBe('cancelled');
      expect(await ctx.redis.zscore(key('scheduled'), pad(id))).toBeNull();
      clock.advance(5000);
      expect(await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 5, now: clock.now() })).toEqual([]);
      await check();
    });

    it('a waiting job holds its tags as a barrier, like a pending or processing one', async () => {
      const { q, clock, id, store } = await claimedJob({ tags: ['batch'] });
      await store.enterWait({
        jobId: id,
        workerId: WORKER,
        waitUntil: new Date(START + 60_000),
        tokenId: null,
        now: clock.now(),
      });
      const after = await q.addJob({ jobType: 'after', payload: {}, dependsOn: { tags: ['batch'] } });
      expect(
        await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 5, jobTypes: ['after'], now: clock.now() }),
      ).toEqual([]);
      clock.advance(60_000);
      const [resumed] = await backendOf(q).claimJobs({
        workerId: WORKER,
        batchSize: 5,
        jobTypes: ['t'],
        now: clock.now(),
      });
      await backendOf(q).completeJobs([{ jobId: resumed!.id, workerId: WORKER }], clock.now());
      const [next] = await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 5, now: clock.now() });
      expect(next?.id).toBe(after);
    });
  });

  describe('token waits', () => {
    it('park the job outside ready/scheduled, and completeToken resumes it: pending, resumed, no attempt added', async () => {
      const { q, clock, id, store } = await claimedJob();
      await store.createToken({ id: 'wp_a', jobId: null, timeoutAt: null, tags: ['t1'], now: clock.now() });
      expect(
        await store.enterWait({ jobId: id, workerId: WORKER, waitUntil: null, tokenId: 'wp_a', now: clock.now() }),
      ).toEqual({
        status: 'waiting',
      });
      expect(await q.getJob(id)).toMatchObject({ status: 'waiting', waitTokenId: 'wp_a', waitUntil: null });
      expect((await store.getToken('wp_a'))?.jobId).toBe(id);
      for (const set of ['ready', 'scheduled', 'processing'])
        expect(await ctx.redis.zscore(key(set), pad(id)), set).toBeNull();
      expect((await q.getJobEvents(id)).at(-1)?.metadata).toEqual({ waitUntil: null, tokenId: 'wp_a' });
      await check();

      clock.advance(10);
      const wakes = await wakeUps(ctx.redis, ctx.prefix);
      expect(await store.completeToken({ tokenId: 'wp_a', output: TRICKY, now: clock.now() })).toBe(true);
      expect(await q.getJob(id)).toMatchObject({ status: 'pending', pendingReason: 'resumed', waitTokenId: null });
      await waitFor(() => wakes.count() === 1, { what: 'the wake-up of the resumed job' });
      const token = await store.getToken('wp_a');
      expect(token).toEqual({
        id: 'wp_a',
        jobId: id,
        status: 'completed',
        output: TRICKY,
        timeoutAt: null,
        createdAt: new Date(START),
        completedAt: clock.now(),
        tags: ['t1'],
      });
      expect(JSON.stringify(token?.output)).toBe(JSON.stringify(TRICKY));
      await check();

      const [resumed] = await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 5, now: clock.now() });
      expect(resumed).toMatchObject({ id, attempts: 1, pendingReason: null, status: 'processing' });
      await check();
    });

    it('token completed first: enterWait returns token_settled with the token and changes nothing', async () => {
      const { q, clock, id, store } = await claimedJob();
      await store.createToken({ id: 'wp_b', jobId: id, timeoutAt: null, tags: [], now: clock.now() });
      expect(await store.completeToken({ tokenId: 'wp_b', output: { v: 0.1 + 0.2 }, now: clock.now() })).toBe(true);
      const before = await q.getJob(id);
      const eventsBefore = await q.getJobEvents(id);
      const result = await store.enterWait({
        jobId: id,
        workerId: WORKER,
        waitUntil: null,
        tokenId: 'wp_b',
        step: { name: 'marker', value: 1 },
        now: clock.now(),
      });
      expect(result).toEqual({
        status: 'token_settled',
        token: expect.objectContaining({ id: 'wp_b', status: 'completed', output: { v: 0.1 + 0.2 } }),
      });
      expect(await q.getJob(id)).toEqual(before);
      expect(await q.getJobEvents(id)).toEqual(eventsBefore);
      expect((await q.getJob(id))?.stepData).toBeNull();
      await check();
    });

    it('enterWait and completeToken racing on two connections: each job ends resumed or kept running, never stuck waiting', async () => {
      const clock = new ManualClock(START);
      const q = ctx.queue({ clock });
      const store = storeOf(q);
      // A second connection, so the two scripts really race instead of queueing on one socket.
      const other = new Redis(REDIS_URL);
      try {
        const otherStore = storeOf(initJobQueue({ backend: 'redis', client: other, keyPrefix: ctx.prefix, clock }));
        const ids = await q.addJobs(Array.from({ length: 60 }, (_, i) => ({ jobType: 'race', payload: i })));
        await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 60, now: clock.now() });
        await Promise.all(
          ids.map((_, i) =>
            store.createToken({ id: `wp_r${i}`, jobId: null, timeoutAt: null, tags: [], now: clock.now() }),
          ),
        );
        const outcomes = await Promise.all(
          ids.map(async (id, i) => {
            const [wait] = await Promise.all([
              store.enterWait({ jobId: id, workerId: WORKER, waitUntil: null, tokenId: `wp_r${i}`, now: clock.now() }),
              otherStore.completeToken({ tokenId: `wp_r${i}`, output: i, now: clock.now() }),
            ]);
            return wait;
          }),
        );
        const jobs = await Promise.all(ids.map((id) => q.getJob(id)));
        ids.forEach((id, i) => {
          const outcome = outcomes[i]!;
          if (outcome.status === 'token_settled') {
            expect(outcome.token.output, `job ${id}`).toBe(i);
            expect(jobs[i]?.status, `job ${id} after token_settled`).toBe('processing');
          } else {
            expect(outcome.status, `job ${id}`).toBe('waiting');
            expect(jobs[i], `job ${id} after waiting`).toMatchObject({ status: 'pending', pendingReason: 'resumed' });
          }
        });
        await check();
      } finally {
        await other.quit();
      }
    });

    it('resumes every job waiting on the same token', async () => {
      const clock = new ManualClock(START);
      const q = ctx.queue({ clock });
      const store = storeOf(q);
      const [a, b] = await q.addJobs([
        { jobType: 't', payload: 1 },
        { jobType: 't', payload: 2 },
      ]);
      await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 2, now: clock.now() });
      await store.createToken({ id: 'wp_shared', jobId: null, timeoutAt: null, tags: [], now: clock.now() });
      for (const id of [a!, b!])
        await store.enterWait({ jobId: id, workerId: WORKER, waitUntil: null, tokenId: 'wp_shared', now: clock.now() });
      expect((await store.getToken('wp_shared'))?.jobId).toBe(b);
      await store.completeToken({ tokenId: 'wp_shared', output: 'ok', now: clock.now() });
      expect((await q.getJob(a!))?.status).toBe('pending');
      expect((await q.getJob(b!))?.status).toBe('pending');
      await check();
    });

    it('cancelling a job waiting on a token removes it from the token waiters; completing the token later leaves it cancelled', async () => {
      const { q, clock, id, store } = await claimedJob();
      await store.createToken({ id: 'wp_c', jobId: null, timeoutAt: null, tags: [], now: clock.now() });
      await store.enterWait({ jobId: id, workerId: WORKER, waitUntil: null, tokenId: 'wp_c', now: clock.now() });
      expect(await ctx.redis.zcard(key('token-waiters'))).toBe(1);
      await q.cancelJob(id);
      expect(await ctx.redis.zcard(key('token-waiters'))).toBe(0);
      await check();
      expect(await store.completeToken({ tokenId: 'wp_c', output: null, now: clock.now() })).toBe(true);
      expect((await q.getJob(id))?.status).toBe('cancelled');
      await check();
    });

    it('completeToken on a token that is not open returns false and keeps the first output', async () => {
      const clock = new ManualClock(START);
      const store = storeOf(ctx.queue({ clock }));
      expect(await store.completeToken({ tokenId: 'wp_none', output: 1, now: clock.now() })).toBe(false);
      await store.createToken({ id: 'wp_d', jobId: null, timeoutAt: null, tags: [], now: clock.now() });
      expect(await store.completeToken({ tokenId: 'wp_d', output: 'first', now: clock.now() })).toBe(true);
      clock.advance(5);
      expect(await store.completeToken({ tokenId: 'wp_d', output: 'second', now: clock.now() })).toBe(false);
      expect(await store.getToken('wp_d')).toMatchObject({ output: 'first', completedAt: new Date(START) });
      expect(await store.getToken('wp_none')).toBeNull();
    });

    it('refuses a token id that exists, and a wait on a token that does not', async () => {
      const { clock, id, store } = await claimedJob();
      await store.createToken({ id: 'wp_e', jobId: null, timeoutAt: null, tags: [], now: clock.now() });
      await expect(
        store.createToken({ id: 'wp_e', jobId: null, timeoutAt: null, tags: [], now: clock.now() }),
      ).rejects.toThrow(/wp_e/);
      const missing = store.enterWait({
        jobId: id,
        workerId: WORKER,
        waitUntil: null,
        tokenId: 'wp_missing',
        now: clock.now(),
      });
      await expect(missing).rejects.toThrow(NotFoundError);
      await expect(missing).rejects.toThrow(/tokenId.*wp_missing/);
      await check();
    });

    it('expireTimedOutTokens times out open tokens due by now and resumes their jobs', async () => {
      const { q, clock, id, store } = await claimedJob();
      await store.createToken({
        id: 'wp_due',
        jobId: null,
        timeoutAt: new Date(START + 1000),
        tags: [],
        now: clock.now(),
      });
      await store.createToken({
        id: 'wp_later',
        jobId: null,
        timeoutAt: new Date(START + 5000),
        tags: [],
        now: clock.now(),
      });
      await store.createToken({ id: 'wp_never', jobId: null, timeoutAt: null, tags: [], now: clock.now() });
      await store.createToken({
        id: 'wp_done',
        jobId: null,
        timeoutAt: new Date(START + 500),
        tags: [],
        now: clock.now(),
      });
      await store.completeToken({ tokenId: 'wp_done', output: 1, now: clock.now() });
      await store.enterWait({ jobId: id, workerId: WORKER, waitUntil: null, tokenId: 'wp_due', now: clock.now() });
      await check();

      expect(await store.expireTimedOutTokens(new Date(START + 999))).toBe(0);
      clock.set(START + 1000);
      expect(await store.expireTimedOutTokens(clock.now())).toBe(1);
      expect(await store.getToken('wp_due')).toMatchObject({
        status: 'timed_out',
        completedAt: clock.now(),
        output: null,
      });
      expect((await store.getToken('wp_later'))?.status).toBe('waiting');
      expect((await store.getToken('wp_done'))?.status).toBe('completed');
      expect(await q.getJob(id)).toMatchObject({ status: 'pending', pendingReason: 'resumed' });
      expect(await store.expireTimedOutTokens(clock.now())).toBe(0);
      await check();
    });

    it('expires more tokens than one script batch', async () => {
      const clock = new ManualClock(START);
      const store = storeOf(ctx.queue({ clock }));
      const at = new Date(START + 1);
      const ids = Array.from({ length: 2100 }, (_, i) => `wp_bulk${i}`);
      for (let i = 0; i < ids.length; i += 300) {
        await Promise.all(
          ids
            .slice(i, i + 300)
            .map((id) => store.createToken({ id, jobId: null, timeoutAt: at, tags: [], now: clock.now() })),
        );
      }
      expect(await store.expireTimedOutTokens(at)).toBe(2100);
      expect(await ctx.redis.zcard(key('token-timeouts'))).toBe(0);
    });
  });

  describe('step data', () => {
    it('merges steps one at a time and keeps every value exact', async () => {
      const { q, clock, id, store } = await claimedJob();
      const save = (stepName: string, value: unknown) =>
        store.saveStep({ jobId: id, workerId: WORKER, stepName, value, now: clock.now() });
      expect(await save('tricky', TRICKY)).toBe(true);
      expect(await save('float', 0.1 + 0.2)).toBe(true);
      expect(await save('list', [])).toBe(true);
      expect(await save('name with "quotes" \\ ✓ and \0 nul', 'x')).toBe(true);
      expect(await save('float', 12345.678901234567)).toBe(true); // replaces the earlier value
      const expected = {
        tricky: TRICKY,
        float: 12345.678901234567,
        list: [],
        'name with "quotes" \\ ✓ and \0 nul': 'x',
      };
      const job = await q.getJob(id);
      expect(job?.stepData).toEqual(expected);
      expect(JSON.stringify((job?.stepData as Record<string, unknown>).tricky)).toBe(JSON.stringify(TRICKY));
      expect((await q.getJobs({ jobType: 't' }))[0]?.stepData).toEqual(expected);
      await check();
    });

    it('is fenced', async () => {
      const { q, clock, id, store } = await claimedJob();
      expect(await store.saveStep({ jobId: id, workerId: 'other', stepName: 's', value: 1, now: clock.now() })).toBe(
        false,
      );
      expect((await q.getJob(id))?.stepData).toBeNull();
    });

    it('comes back with the claim after a wait and after a retry, and is cleared on completion', async () => {
      const { q, clock, id, store } = await claimedJob();
      await store.saveStep({ jobId: id, workerId: WORKER, stepName: 'one', value: 1 / 3, now: clock.now() });
      await store.enterWait({
        jobId: id,
        workerId: WORKER,
        waitUntil: new Date(START + 10),
        tokenId: null,
        step: { name: 'wait:0', value: { until: 1e21 } },
        now: clock.now(),
      });
      expect((await q.getJob(id))?.stepData).toEqual({ one: 1 / 3, 'wait:0': { until: 1e21 } });
      clock.advance(10);
      const [afterWait] = await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 1, now: clock.now() });
      expect(afterWait?.stepData).toEqual({ one: 1 / 3, 'wait:0': { until: 1e21 } });

      await failOne(backendOf(q), {
        jobId: id,
        workerId: WORKER,
        message: 'x',
        reason: 'handler_error',
        retryAt: new Date(START + 20),
        now: clock.now(),
      });
      expect((await q.getJob(id))?.stepData).toEqual({ one: 1 / 3, 'wait:0': { until: 1e21 } });
      clock.advance(10);
      const [afterRetry] = await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 1, now: clock.now() });
      expect(afterRetry?.attempts).toBe(2);
      expect(afterRetry?.stepData).toEqual({ one: 1 / 3, 'wait:0': { until: 1e21 } });

      await backendOf(q).completeJobs([{ jobId: id, workerId: WORKER }], clock.now());
      expect((await q.getJob(id))?.stepData).toBeNull();
      expect(await ctx.redis.exists(key('steps'), key('step-names'))).toBe(0);
      await check();
    });

    it('is removed with the job by cleanupOldJobs, and a manual retry keeps it', async () => {
      const { q, clock, id, store } = await claimedJob();
      await store.saveStep({ jobId: id, workerId: WORKER, stepName: 'kept', value: [1, 2], now: clock.now() });
      await failOne(backendOf(q), {
        jobId: id,
        workerId: WORKER,
        message: 'x',
        reason: 'handler_error',
        retryAt: null,
        now: clock.now(),
      });
      await q.retryJob(id);
      expect((await q.getJob(id))?.stepData).toEqual({ kept: [1, 2] });
      await q.cancelJob(id);
      clock.advance(2 * 86_400_000);
      expect(await q.cleanupOldJobs(1)).toBe(1);
      expect(await ctx.redis.exists(key('steps'), key('step-names'))).toBe(0);
      await check();
    });
  });
});
