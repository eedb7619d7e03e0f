/**
 * Cron schedules on Redis (the cron scripts): unique names, the `cron-due` set following the
 * status, the compare-and-set that lets exactly one of many concurrent callers enqueue a slot,
 * the overlap rule, and payloads stored verbatim.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { CronSlot, NewCronSchedule } from '../../src/backend.js';
import { ManualClock } from '../../src/clock.js';
import { ValidationError } from '../../src/errors.js';
import { pad } from '../../src/backends/redis/keys.js';
import { backendOf, initJobQueue } from '../../src/queue.js';
import type { CronScheduleRecord } from '../../src/types.js';
import { normalizeJob } from '../../src/validation.js';
import { REDIS_URL } from '../helpers/backends.js';
import { expectConsistent } from './consistency.js';
import { storeOf, useRedis, wakeUps } from './support.js';
import { waitFor } from '../helpers/wait.js';
import { failOne } from '../helpers/fail.js';

const WORKER = 'w1';
const START = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;

const PAYLOAD = {
  third: 1 / 3,
  huge: 1e300,
  maxSafe: 9007199254740991,
  empty: [],
  nested: [{ a: [] }],
  text: 'ü ✓ "q"',
};

function schedule(name: string, over: Partial<NewCronSchedule> = {}): NewCronSchedule {
  return {
    scheduleName: name,
    cronExpression: '* * * * *',
    jobType: 'tick',
    payload: PAYLOAD,
    timezone: 'UTC',
    allowOverlap: false,
    maxAttempts: 3,
    priority: 0,
    timeoutMs: null,
    tags: [],
    retryDelay: null,
    retryBackoff: null,
    retryDelayMax: null,
    nextRunAt: new Date(START),
    ...over,
  };
}

/** The slot after `s`'s current nextRunAt, as the shared enqueue code builds it. */
function slotOf(s: CronScheduleRecord, now: Date): CronSlot {
  return {
    scheduleId: s.id,
    expectedNextRunAt: s.nextRunAt,
    nextRunAt: new Date(s.nextRunAt.getTime() + MINUTE),
    job: normalizeJob('', { jobType: s.jobType, payload: s.payload, tags: s.tags, priority: s.priority }, now),
  };
}

describe('redis cron schedules', () => {
  const ctx = useRedis();
  const key = (name: string) => `${ctx.prefix}{q}:${name}`;
  const check = () => expectConsistent(ctx.redis, ctx.prefix);

  function setup() {
    const clock = new ManualClock(START);
    const q = ctx.queue({ clock });
    return { clock, q, store: storeOf(q) };
  }

  it('stores a schedule with its payload verbatim and reads it by id, by name and by status, ordered by id', async () => {
    const { clock, store } = setup();
    const a = await store.addCronSchedule(
      schedule('a', { tags: ['x'], retryDelay: 0.1 + 0.2, retryDelayMax: 1 / 3, timeoutMs: 5000 }),
      clock.now(),
    );
    const b = await store.addCronSchedule(schedule('b'), clock.now());
    const [byId] = await store.getCronSchedules({ id: a });
    expect(byId).toEqual({
      id: a,
      scheduleName: 'a',
      cronExpression: '* * * * *',
      jobType: 'tick',
      payload: PAYLOAD,
      timezone: 'UTC',
      allowOverlap: false,
      status: 'active',
      maxAttempts: 3,
      priority: 0,
      timeoutMs: 5000,
      tags: ['x'],
      retryDelay: 0.1 + 0.2,
      retryBackoff: null,
      retryDelayMax: 1 / 3,
      lastEnqueuedAt: null,
      lastJobId: null,
      nextRunAt: new Date(START),
      createdAt: new Date(START),
      updatedAt: new Date(START),
    });
    expect(JSON.stringify(byId?.payload)).toBe(JSON.stringify(PAYLOAD));
    expect((await store.getCronSchedules({ name: 'b' })).map((s) => s.id)).toEqual([b]);
    expect(await store.getCronSchedules({ name: 'nope' })).toEqual([]);
    expect(await store.getCronSchedules({ id: 999 })).toEqual([]);
    await store.editCronSchedule(a, { status: 'paused' }, clock.now());
    expect((await store.getCronSchedules({})).map((s) => s.id)).toEqual([a, b]);
    expect((await store.getCronSchedules({ status: 'active' })).map((s) => s.id)).toEqual([b]);
    expect((await store.getCronSchedules({ status: 'paused' })).map((s) => s.id)).toEqual([a]);
    await check();
  });

  it('refuses a taken name with a ValidationError on scheduleName, writing nothing', async () => {
    const { clock, store } = setup();
    const first = await store.addCronSchedule(schedule('nightly'), clock.now());
    const before = await ctx.redis.hgetall(key('cron'));
    const error = await store
      .addCronSchedule(schedule('nightly', { jobType: 'other' }), clock.now())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe('scheduleName');
    expect((error as Error).message).toContain('"nightly"');
    expect((error as Error).message).toContain(String(first));
    expect(await ctx.redis.hgetall(key('cron'))).toEqual(before);
    expect(await ctx.redis.get(key('cron:id'))).toBe('1');
    await check();
  });

  it('edits only the given fields; pausing leaves cron-due, resuming comes back at nextRunAt', async () => {
    const { clock, store } = setup();
    const id = await store.addCronSchedule(schedule('e', { tags: ['t'], priority: 2 }), clock.now());
    clock.advance(1000);
    expect(await store.editCronSchedule(id, { status: 'paused', payload: { n: 0.1 + 0.2 } }, clock.now())).toBe(true);
    expect(await ctx.redis.zscore(key('cron-due'), pad(id))).toBeNull();
    const [paused] = await store.getCronSchedules({ id });
    expect(paused).toMatchObject({
      status: 'paused',
      payload: { n: 0.1 + 0.2 },
      tags: ['t'],
      priority: 2,
      updatedAt: clock.now(),
    });
    expect(await store.getDueCronSchedules(new Date(START + 10 * MINUTE), 10)).toEqual([]);

    const next = new Date(START + 5 * MINUTE);
    await store.editCronSchedule(id, { status: 'active', nextRunAt: next, tags: [], timeoutMs: null }, clock.now());
    expect(Number(await ctx.redis.zscore(key('cron-due'), pad(id)))).toBe(next.getTime());
    expect(await store.getCronSchedules({ id })).toEqual([
      { ...paused, status: 'active', nextRunAt: next, tags: [], timeoutMs: null, updatedAt: clock.now() },
    ]);
    expect(await store.editCronSchedule(404, { priority: 1 }, clock.now())).toBe(false);
    await check();
  });

  it('removes only the definition: the jobs it enqueued stay, and the name is free again', async () => {
    const { clock, q, store } = setup();
    const id = await store.addCronSchedule(schedule('r'), clock.now());
    const [s] = await store.getDueCronSchedules(clock.now(), 10);
    const [enqueued] = await store.enqueueCronSlots([slotOf(s!, clock.now())], clock.now());
    expect(await store.removeCronSchedule(id)).toBe(true);
    expect(await store.removeCronSchedule(id)).toBe(false);
    expect(await store.getCronSchedules({})).toEqual([]);
    expect((await q.getJob(enqueued!.jobId!))?.status).toBe('pending');
    await store.addCronSchedule(schedule('r'), clock.now());
    await check();
  });

  it('lists due active schedules oldest due first, up to the limit', async () => {
    const { clock, store } = setup();
    const late = await store.addCronSchedule(schedule('late', { nextRunAt: new Date(START - MINUTE) }), clock.now());
    const early = await store.addCronSchedule(
      schedule('early', { nextRunAt: new Date(START - 2 * MINUTE) }),
      clock.now(),
    );
    await store.addCronSchedule(schedule('future', { nextRunAt: new Date(START + 1) }), clock.now());
    const paused = await store.addCronSchedule(
      schedule('paused', { nextRunAt: new Date(START - 3 * MINUTE) }),
      clock.now(),
    );
    await store.editCronSchedule(paused, { status: 'paused' }, clock.now());
    const now = await store.addCronSchedule(schedule('now', { nextRunAt: new Date(START) }), clock.now());
    expect((await store.getDueCronSchedules(clock.now(), 10)).map((s) => s.id)).toEqual([early, late, now]);
    expect((await store.getDueCronSchedules(clock.now(), 2)).map((s) => s.id)).toEqual([early, late]);
  });

  it('enqueues a slot like addJobs: indexes, `added` event, wake-up, lastJobId and lastEnqueuedAt', async () => {
    const { clock, q, store } = setup();
    const id = await store.addCronSchedule(schedule('j', { tags: ['cron'], priority: 4 }), clock.now());
    const [s] = await store.getDueCronSchedules(clock.now(), 10);
    const wakes = await wakeUps(ctx.redis, ctx.prefix);
    const [result] = await store.enqueueCronSlots([slotOf(s!, clock.now())], clock.now());
    expect(result).toEqual({ scheduleId: id, jobId: expect.any(Number) });
    const job = await q.getJob(result!.jobId!);
    expect(job).toMatchObject({ jobType: 'tick', status: 'pending', tags: ['cron'], priority: 4, payload: PAYLOAD });
    expect(JSON.stringify(job?.payload)).toBe(JSON.stringify(PAYLOAD));
    expect((await q.getJobEvents(job!.id)).map((e) => e.eventType)).toEqual(['added']);
    await waitFor(() => wakes.count() === 1, { what: 'the wake-up of the enqueued job' });
    expect((await store.getCronSchedules({ id }))[0]).toMatchObject({
      lastJobId: job!.id,
      lastEnqueuedAt: clock.now(),
      nextRunAt: new Date(START + MINUTE),
    });
    const [claimed] = await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 1, now: clock.now() });
    expect(claimed?.id).toBe(job!.id);
    await check();
  });

  it('N concurrent callers on separate connections enqueue one slot exactly once', async () => {
    const { clock, q, store } = setup();
    const id = await store.addCronSchedule(schedule('race', { allowOverlap: true }), clock.now());
    const [s] = await store.getDueCronSchedules(clock.now(), 10);
    const clients = Array.from({ length: 8 }, () => new Redis(REDIS_URL));
    try {
      const stores = clients.map((client) =>
        storeOf(initJobQueue({ backend: 'redis', client, keyPrefix: ctx.prefix, clock })),
      );
      // Every caller read the same schedule and sends the same slot (three times each).
      const results = await Promise.all(
        stores.flatMap((other) => [1, 2, 3].map(() => other.enqueueCronSlots([slotOf(s!, clock.now())], clock.now()))),
      );
      const jobIds = results
        .flat()
        .map((r) => r.jobId)
        .filter((j): j is number => j !== null);
      expect(jobIds).toHaveLength(1);
      expect(await q.getAllJobs()).toHaveLength(1);
      expect((await store.getCronSchedules({ id }))[0]).toMatchObject({
        lastJobId: jobIds[0],
        nextRunAt: new Date(START + MINUTE),
      });
      await check();
    } finally {
      await Promise.all(clients.map((c) => c.quit()));
    }
  });

  it('handles a list of slots in one call: lost CAS, paused and unknown schedules give null', async () => {
    const { clock, store } = setup();
    const a = await store.addCronSchedule(schedule('a', { allowOverlap: true }), clock.now());
    const b = await store.addCronSchedule(schedule('b'), clock.now());
    const c = await store.addCronSchedule(schedule('c'), clock.now());
    const [sa, sb, sc] = await store.getDueCronSchedules(clock.now(), 10);
    await store.editCronSchedule(c, { status: 'paused' }, clock.now());
    const stale = { ...slotOf(sb!, clock.now()), expectedNextRunAt: new Date(START - MINUTE) };
    const ghost = { ...slotOf(sa!, clock.now()), scheduleId: 999 };
    const results = await store.enqueueCronSlots(
      [slotOf(sa!, clock.now()), stale, slotOf(sc!, clock.now()), ghost, slotOf(sa!, clock.now())],
      clock.now(),
    );
    expect(results.map((r) => r.scheduleId)).toEqual([a, b, c, 999, a]);
    expect(results.map((r) => r.jobId === null)).toEqual([false, true, true, true, true]);
    expect((await store.getCronSchedules({ id: b }))[0]?.nextRunAt).toEqual(new Date(START));
    expect((await store.getCronSchedules({ id: c }))[0]).toMatchObject({
      nextRunAt: new Date(START),
      status: 'paused',
    });
    await check();
  });

  it('without allowOverlap, skips (but advances) while the last job is pending, processing, waiting or failed with a retry due', async () => {
    const { clock, q, store } = setup();
    const id = await store.addCronSchedule(schedule('o'), clock.now());
    const read = async () => (await store.getCronSchedules({ id }))[0]!;
    const enqueue = async () => {
      const s = await read();
      const [r] = await store.enqueueCronSlots([slotOf(s, clock.now())], clock.now());
      expect((await read()).nextRunAt).toEqual(new Date(s.nextRunAt.getTime() + MINUTE));
      return r!.jobId;
    };

    const first = await enqueue();
    expect(first).not.toBeNull();
    expect(await enqueue()).toBeNull(); // pending
    await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 1, now: clock.now() });
    expect(await enqueue()).toBeNull(); // processing
    await storeOf(q).enterWait({
      jobId: first!,
      workerId: WORKER,
      waitUntil: new Date(START + 1),
      tokenId: null,
      now: clock.now(),
    });
    expect(await enqueue()).toBeNull(); // waiting
    clock.advance(1);
    await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 1, now: clock.now() });
    await failOne(backendOf(q), {
      jobId: first!,
      workerId: WORKER,
      message: 'x',
      reason: 'handler_error',
      retryAt: new Date(START + 2),
      now: clock.now(),
    });
    expect(await enqueue()).toBeNull(); // failed, retry due
    clock.advance(1);
    await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 1, now: clock.now() });
    await failOne(backendOf(q), {
      jobId: first!,
      workerId: WORKER,
      message: 'x',
      reason: 'handler_error',
      retryAt: null,
      now: clock.now(),
    });
    const second = await enqueue(); // failed for good: a new instance may start
    expect(second).not.toBeNull();
    expect((await read()).lastJobId).toBe(second);

    await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 1, now: clock.now() });
    await backendOf(q).completeJobs([{ jobId: second!, workerId: WORKER }], clock.now());
    expect(await enqueue()).not.toBeNull(); // completed
    await check();
  });

  it('with allowOverlap, enqueues while the last job is still active', async () => {
    const { clock, store } = setup();
    const id = await store.addCronSchedule(schedule('ov', { allowOverlap: true }), clock.now());
    for (let i = 0; i < 3; i++) {
      const [s] = await store.getCronSchedules({ id });
      const [r] = await store.enqueueCronSlots([slotOf(s!, clock.now())], clock.now());
      expect(r?.jobId).not.toBeNull();
    }
    await check();
  });
});
