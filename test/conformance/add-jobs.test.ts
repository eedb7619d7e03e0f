/**
 * Adding jobs (SPEC §4.1, §2.2 defaults, §3 rows "addJob" and "existing idempotencyKey").
 */
import { describe, expect, it } from 'vitest';
import { batchDepRef } from '../../src/queue.js';
import { ValidationError } from '../../src/errors.js';
import { forEachBackend, ManualClock } from '../helpers/backends.js';
import { expectFailure, ids } from './assertions.js';
import { DAY_MS } from './job-states.js';

const T0 = new Date('2030-01-02T03:04:05.678Z');

function strictlyIncreasing(values: number[]): boolean {
  return values.every((v, i) => i === 0 || v > values[i - 1]!);
}

forEachBackend('addJob (§4.1, §2.2)', (ctx) => {
  it('applies the defaults of §2.2 and reads the job back in full', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({ jobType: 'email', payload: { to: 'a@example.com' } });

    expect(Number.isInteger(id) && id > 0).toBe(true);
    expect(await q.getJob(id)).toEqual({
      id,
      jobType: 'email',
      payload: { to: 'a@example.com' },
      status: 'pending',
      createdAt: T0,
      updated_at: T0,
      updatedAt: T0,
      locked_at: null,
      lockedAt: null,
      locked_by: null,
      lockedBy: null,
      attempts: 0,
      maxAttempts: 3,
      nextAttemptAt: null,
      priority: 0,
      runAt: T0,
      pendingReason: null,
      errorHistory: [],
      timeoutMs: null,
      forceKillOnTimeout: false,
      failureReason: null,
      completedAt: null,
      startedAt: null,
      lastRetriedAt: null,
      lastFailedAt: null,
      lastCancelledAt: null,
      tags: [],
      idempotencyKey: null,
      progress: null,
      output: null,
      retryDelay: null,
      retryBackoff: null,
      retryDelayMax: null,
      deadLetterJobType: null,
      deadLetteredAt: null,
      deadLetterJobId: null,
      group: null,
      dependsOnJobIds: null,
      dependsOnTags: null,
      waitUntil: null,
      waitTokenId: null,
      stepData: null,
    });
  });

  it('stores every option of §2.2 and reads it back', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const prerequisite = await q.addJob({ jobType: 'prepare', payload: {} });
    const runAt = new Date(T0.getTime() + 3_600_000);
    const payload = {
      to: 'a@example.com',
      nested: { list: [1, 'two', null, true, { x: 1.5 }], empty: {} },
      text: 'héllo ✓ "quoted" \\ back\nslash',
      big: 2 ** 52,
      negative: -0.25,
    };
    const id = await q.addJob({
      jobType: 'email',
      payload,
      maxAttempts: 7,
      priority: -12,
      runAt,
      timeoutMs: 45_000,
      forceKillOnTimeout: true,
      tags: ['welcome', 'tenant:42'],
      idempotencyKey: 'welcome-42',
      retryDelay: 1.5,
      retryBackoff: false,
      retryDelayMax: 600,
      deadLetterJobType: 'email-dead',
      group: { id: 'tenant-42', tier: 'gold' },
      dependsOn: { jobIds: [prerequisite], tags: ['import'] },
    });

    const job = await q.getJob(id);
    expect(job).toMatchObject({
      id,
      jobType: 'email',
      payload,
      status: 'pending',
      attempts: 0,
      maxAttempts: 7,
      priority: -12,
      runAt,
      createdAt: T0,
      timeoutMs: 45_000,
      forceKillOnTimeout: true,
      tags: ['welcome', 'tenant:42'],
      idempotencyKey: 'welcome-42',
      retryDelay: 1.5,
      retryBackoff: false,
      retryDelayMax: 600,
      deadLetterJobType: 'email-dead',
      group: { id: 'tenant-42', tier: 'gold' },
      dependsOnJobIds: [prerequisite],
      dependsOnTags: ['import'],
    });
  });

  it('stores a group without tier', async () => {
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {}, group: { id: 'g1' } });
    const job = await ctx.queue.getJob(id);
    expect(job?.group?.id).toBe('g1');
    expect(job?.group?.tier ?? null).toBeNull();
  });

  it('stores runAt null as now', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({ jobType: 'email', payload: {}, runAt: null });
    expect((await q.getJob(id))?.runAt).toEqual(T0);
  });

  it('stores a runAt in the past as given', async () => {
    const past = new Date('2001-02-03T04:05:06.007Z');
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {}, runAt: past });
    expect((await ctx.queue.getJob(id))?.runAt).toEqual(past);
  });

  it('keeps the caller order of tags and drops duplicates', async () => {
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {}, tags: ['b', 'a', 'b', 'c', 'a'] });
    expect((await ctx.queue.getJob(id))?.tags).toEqual(['b', 'a', 'c']);
  });

  it.each([
    ['an object', { a: 1 }],
    ['an array', [1, 'x', null]],
    ['a string', 'just text'],
    ['a number', 42.5],
    ['a boolean', false],
    ['null', null],
    ['an empty object', {}],
    ['an empty string', ''],
  ])('round-trips a payload that is %s', async (_label, payload) => {
    const id = await ctx.queue.addJob({ jobType: 'echo', payload });
    expect((await ctx.queue.getJob(id))?.payload).toEqual(payload);
  });

  it('stores a payload with JSON semantics (Date becomes its ISO string, undefined members are dropped)', async () => {
    const when = new Date('2031-05-06T07:08:09.010Z');
    const id = await ctx.queue.addJob({ jobType: 'echo', payload: { when, gone: undefined, list: [undefined] } });
    expect((await ctx.queue.getJob(id))?.payload).toEqual({ when: when.toISOString(), list: [null] });
  });

  it('returns strictly increasing ids', async () => {
    const a = await ctx.queue.addJob({ jobType: 'x', payload: 1 });
    const b = await ctx.queue.addJob({ jobType: 'x', payload: 2 });
    const [c, d] = await ctx.queue.addJobs([
      { jobType: 'x', payload: 3 },
      { jobType: 'x', payload: 4 },
    ]);
    const e = await ctx.queue.addJob({ jobType: 'x', payload: 5 });
    expect(strictlyIncreasing([a, b, c!, d!, e])).toBe(true);
  });

  it('stores createdAt from the queue clock', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const first = await q.addJob({ jobType: 'x', payload: {} });
    clock.advance(90_000);
    const second = await q.addJob({ jobType: 'x', payload: {} });
    expect((await q.getJob(first))?.createdAt).toEqual(T0);
    expect((await q.getJob(second))?.createdAt).toEqual(new Date(T0.getTime() + 90_000));
    expect((await q.getJob(second))?.runAt).toEqual(new Date(T0.getTime() + 90_000));
  });
});

forEachBackend('addJobs (§4.1 rule 4)', (ctx) => {
  it('returns ids in input order, each naming the job at that position', async () => {
    const list = ['a', 'b', 'c', 'd'].map((jobType, i) => ({ jobType, payload: { i }, priority: 10 - i }));
    const result = await ctx.queue.addJobs(list);
    expect(result).toHaveLength(4);
    expect(strictlyIncreasing(result)).toBe(true);
    for (const [i, id] of result.entries()) {
      expect(await ctx.queue.getJob(id)).toMatchObject({
        id,
        jobType: list[i]!.jobType,
        payload: { i },
        priority: 10 - i,
      });
    }
  });

  it('gives each job its own options', async () => {
    const runAt = new Date('2031-01-01T00:00:00.000Z');
    const [a, b] = await ctx.queue.addJobs([
      { jobType: 'a', payload: {}, maxAttempts: 1, tags: ['x'], runAt },
      { jobType: 'b', payload: {}, timeoutMs: 5, deadLetterJobType: 'dead' },
    ]);
    expect(await ctx.queue.getJob(a!)).toMatchObject({
      maxAttempts: 1,
      tags: ['x'],
      runAt,
      timeoutMs: null,
      deadLetterJobType: null,
    });
    expect(await ctx.queue.getJob(b!)).toMatchObject({
      maxAttempts: 3,
      tags: [],
      timeoutMs: 5,
      deadLetterJobType: 'dead',
    });
  });

  it('addJobs([]) returns [] and writes nothing', async () => {
    const added: number[] = [];
    ctx.queue.on('job:added', ({ jobId }) => added.push(jobId));
    expect(await ctx.queue.addJobs([])).toEqual([]);
    expect(await ctx.queue.getAllJobs()).toEqual([]);
    expect(added).toEqual([]);
  });

  it('adds 5,000 jobs in one call and returns their ids in input order', async () => {
    const list = Array.from({ length: 5000 }, (_, i) => ({ jobType: `t${i % 7}`, payload: { i } }));
    const result = await ctx.queue.addJobs(list);
    expect(result).toHaveLength(5000);
    expect(strictlyIncreasing(result)).toBe(true);
    const all = await ctx.queue.getAllJobs();
    expect(all).toHaveLength(5000);
    // Newest first: the last input job comes first.
    expect(ids(all)).toEqual([...result].reverse());
    const indexById = new Map(all.map((job) => [job.id, (job.payload as { i: number }).i]));
    expect(result.map((id) => indexById.get(id))).toEqual(list.map((_, i) => i));
    expect(all.every((job) => job.jobType === `t${(job.payload as { i: number }).i % 7}`)).toBe(true);
  });
});

forEachBackend('idempotency keys (§4.1 rules 2-3, §3)', (ctx) => {
  it('inserts a job with a fresh key and returns its new id', async () => {
    const id = await ctx.queue.addJob({ jobType: 'email', payload: { n: 1 }, idempotencyKey: 'k1' });
    expect(await ctx.queue.getJob(id)).toMatchObject({ id, idempotencyKey: 'k1', payload: { n: 1 } });
  });

  it('returns the existing id on a conflict and does not modify the existing job', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({ jobType: 'email', payload: { n: 1 }, priority: 1, tags: ['a'], idempotencyKey: 'k1' });
    const before = await q.getJob(id);
    clock.advance(60_000);
    const again = await q.addJob({
      jobType: 'sms',
      payload: { n: 2 },
      priority: 9,
      tags: ['b'],
      maxAttempts: 10,
      idempotencyKey: 'k1',
    });
    expect(again).toBe(id);
    expect(await q.getJob(id)).toEqual(before);
    expect(ids(await q.getAllJobs())).toEqual([id]);
    expect((await q.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added']);
  });

  it('treats jobs without a key as never conflicting', async () => {
    const a = await ctx.queue.addJob({ jobType: 'email', payload: { same: true } });
    const b = await ctx.queue.addJob({ jobType: 'email', payload: { same: true } });
    expect(a).not.toBe(b);
    expect(await ctx.queue.getAllJobs()).toHaveLength(2);
  });

  it('keeps a key unique after the job is cancelled', async () => {
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {}, idempotencyKey: 'k-cancel' });
    await ctx.queue.cancelJob(id);
    expect(await ctx.queue.addJob({ jobType: 'email', payload: {}, idempotencyKey: 'k-cancel' })).toBe(id);
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'cancelled' });
    expect(await ctx.queue.getAllJobs()).toHaveLength(1);
  });

  it('resolves duplicate keys inside one batch to the first job of the batch', async () => {
    const result = await ctx.queue.addJobs([
      { jobType: 'a', payload: { n: 1 }, idempotencyKey: 'dup' },
      { jobType: 'b', payload: { n: 2 } },
      { jobType: 'c', payload: { n: 3 }, idempotencyKey: 'dup' },
    ]);
    expect(result[2]).toBe(result[0]);
    expect(result[1]).not.toBe(result[0]);
    expect(await ctx.queue.getAllJobs()).toHaveLength(2);
    expect(await ctx.queue.getJob(result[0]!)).toMatchObject({
      jobType: 'a',
      payload: { n: 1 },
      idempotencyKey: 'dup',
    });
  });

  it('resolves keys of a batch that already exist to the existing ids', async () => {
    const existing = await ctx.queue.addJob({ jobType: 'old', payload: { old: true }, idempotencyKey: 'k-old' });
    const result = await ctx.queue.addJobs([
      { jobType: 'new', payload: { n: 1 } },
      { jobType: 'new', payload: { n: 2 }, idempotencyKey: 'k-old' },
      { jobType: 'new', payload: { n: 3 }, idempotencyKey: 'k-new' },
    ]);
    expect(result[1]).toBe(existing);
    expect(strictlyIncreasing([existing, result[0]!, result[2]!])).toBe(true);
    expect(await ctx.queue.getJob(existing)).toMatchObject({ jobType: 'old', payload: { old: true } });
    expect(await ctx.queue.getAllJobs()).toHaveLength(3);
  });

  it('frees a key once cleanupOldJobs removed its job', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const old = await q.addJob({ jobType: 'email', payload: { v: 1 }, idempotencyKey: 'k-clean' });
    await q.cancelJob(old);
    clock.advance(31 * DAY_MS);
    expect(await q.cleanupOldJobs(30)).toBe(1);
    const fresh = await q.addJob({ jobType: 'email', payload: { v: 2 }, idempotencyKey: 'k-clean' });
    expect(fresh).toBeGreaterThan(old);
    expect(await q.getJob(old)).toBeNull();
    expect(await q.getJob(fresh)).toMatchObject({ status: 'pending', payload: { v: 2 }, idempotencyKey: 'k-clean' });
    // The key now names the new job.
    expect(await q.addJob({ jobType: 'email', payload: { v: 3 }, idempotencyKey: 'k-clean' })).toBe(fresh);
  });
});

forEachBackend('batchDepRef (§4.1 rule 5)', (ctx) => {
  it('replaces placeholders with the real ids of the batch', async () => {
    const existing = await ctx.queue.addJob({ jobType: 'seed', payload: {} });
    const result = await ctx.queue.addJobs([
      { jobType: 'extract', payload: {} },
      { jobType: 'transform', payload: {}, dependsOn: { jobIds: [batchDepRef(0)] } },
      { jobType: 'load', payload: {}, dependsOn: { jobIds: [batchDepRef(1), existing, batchDepRef(0)] } },
    ]);
    expect(await ctx.queue.getJob(result[0]!)).toMatchObject({ dependsOnJobIds: null });
    expect(await ctx.queue.getJob(result[1]!)).toMatchObject({ dependsOnJobIds: [result[0]] });
    expect(await ctx.queue.getJob(result[2]!)).toMatchObject({ dependsOnJobIds: [result[1], existing, result[0]] });
  });

  it('lets a job depend on a later job of the same batch', async () => {
    const result = await ctx.queue.addJobs([
      { jobType: 'after', payload: {}, dependsOn: { jobIds: [batchDepRef(1)] } },
      { jobType: 'before', payload: {} },
    ]);
    expect(await ctx.queue.getJob(result[0]!)).toMatchObject({ dependsOnJobIds: [result[1]] });
  });
});

describe('batchDepRef (pure)', () => {
  it('maps index i to -(i + 1)', () => {
    expect([0, 1, 4, 99].map(batchDepRef)).toEqual([-1, -2, -5, -100]);
  });

  it.each([-1, 1.5, Number.NaN])('rejects index %s with a ValidationError', async (index) => {
    await expectFailure(() => batchDepRef(index), ValidationError, { field: 'index', message: ['`index`', 'integer'] });
  });
});
