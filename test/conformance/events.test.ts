/**
 * Event history (SPEC §6.1, §2.8) with the metadata decided in DETAILS "Event metadata":
 * added `{ jobType, tags, idempotencyKey }`, cancelled null (or `{ cascadeFrom }`), edited the
 * updated fields, retried null. Events of processing are covered by the processing suite.
 */
import { expect, it } from 'vitest';
import { backendOf } from '../../src/queue.js';
import { forEachBackend, ManualClock } from '../helpers/backends.js';

const T0 = new Date('2030-03-01T08:00:00.000Z');
const DAY = 86_400_000;
const at = (ms: number) => new Date(T0.getTime() + ms);

forEachBackend('getJobEvents (§6.1)', (ctx) => {
  it('records an added event with { jobType, tags, idempotencyKey }', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({
      jobType: 'email',
      payload: { secret: 'not in events' },
      tags: ['a', 'b'],
      idempotencyKey: 'k',
    });
    const events = await q.getJobEvents(id);
    expect(events).toEqual([
      {
        id: expect.any(Number),
        jobId: id,
        eventType: 'added',
        createdAt: T0,
        metadata: { jobType: 'email', tags: ['a', 'b'], idempotencyKey: 'k' },
      },
    ]);
    expect(events[0]!.id).toBeGreaterThan(0);
  });

  it('records empty tags and a null idempotencyKey when none were given', async () => {
    const id = await ctx.queue.addJob({ jobType: 'sms', payload: {} });
    expect((await ctx.queue.getJobEvents(id)).map((e) => e.metadata)).toEqual([
      { jobType: 'sms', tags: [], idempotencyKey: null },
    ]);
  });

  it('records one added event per job of an addJobs batch', async () => {
    const added = await ctx.queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {}, tags: ['t'] },
    ]);
    expect((await ctx.queue.getJobEvents(added[0]!)).map((e) => [e.jobId, e.eventType, e.metadata])).toEqual([
      [added[0], 'added', { jobType: 'a', tags: [], idempotencyKey: null }],
    ]);
    expect((await ctx.queue.getJobEvents(added[1]!)).map((e) => [e.jobId, e.eventType, e.metadata])).toEqual([
      [added[1], 'added', { jobType: 'b', tags: ['t'], idempotencyKey: null }],
    ]);
  });

  it('records no event for an idempotent duplicate', async () => {
    const id = await ctx.queue.addJob({ jobType: 'a', payload: {}, idempotencyKey: 'once' });
    await ctx.queue.addJob({ jobType: 'a', payload: {}, idempotencyKey: 'once' });
    await ctx.queue.addJobs([{ jobType: 'a', payload: {}, idempotencyKey: 'once' }]);
    expect((await ctx.queue.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added']);
  });

  it('lists a history oldest first, with the metadata of each event type', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({ jobType: 'email', payload: {} });
    clock.advance(1_000);
    await q.editJob(id, { priority: 4, tags: ['x'], retryDelay: null, deadLetterJobType: null });
    clock.advance(1_000);
    await q.cancelJob(id);
    clock.advance(1_000);
    await q.retryJob(id);
    clock.advance(1_000);
    await q.editJob(id, { payload: { v: 2 }, maxAttempts: 5 });

    const events = await q.getJobEvents(id);
    expect(events.map((e) => [e.jobId, e.eventType, e.createdAt, e.metadata])).toEqual([
      [id, 'added', at(0), { jobType: 'email', tags: [], idempotencyKey: null }],
      [id, 'edited', at(1_000), { priority: 4, tags: ['x'], retryDelay: null, deadLetterJobType: null }],
      [id, 'cancelled', at(2_000), null],
      [id, 'retried', at(3_000), null],
      [id, 'edited', at(4_000), { payload: { v: 2 }, maxAttempts: 5 }],
    ]);
    const eventIds = events.map((e) => e.id);
    expect(eventIds.every((v, i) => i === 0 || v > eventIds[i - 1]!)).toBe(true);
  });

  it('records an edited runAt as its ISO string and runAt null as the resolved time', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({ jobType: 'email', payload: {} });
    const later = new Date('2031-01-01T00:00:00.000Z');
    await q.editJob(id, { runAt: later });
    clock.advance(5_000);
    await q.editJob(id, { runAt: null });
    expect((await q.getJobEvents(id)).slice(1).map((e) => e.metadata)).toEqual([
      { runAt: later.toISOString() },
      { runAt: at(5_000).toISOString() },
    ]);
  });

  it('returns only the events of the requested job', async () => {
    const [a, b] = await ctx.queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {} },
    ]);
    await ctx.queue.cancelJob(b!);
    expect((await ctx.queue.getJobEvents(a!)).map((e) => [e.jobId, e.eventType])).toEqual([[a, 'added']]);
    expect((await ctx.queue.getJobEvents(b!)).map((e) => [e.jobId, e.eventType])).toEqual([
      [b, 'added'],
      [b, 'cancelled'],
    ]);
  });

  it('returns [] for an unknown job', async () => {
    expect(await ctx.queue.getJobEvents(123_456)).toEqual([]);
  });

  it('records no event for a no-op cancel, retry or edit', async () => {
    const id = await ctx.queue.addJob({ jobType: 'a', payload: {} });
    await ctx.queue.retryJob(id); // pending: not retryable
    await ctx.queue.editJob(id, {}); // no fields
    await ctx.queue.cancelJob(id);
    await ctx.queue.cancelJob(id); // already cancelled
    await ctx.queue.editJob(id, { priority: 1 }); // not pending
    expect((await ctx.queue.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added', 'cancelled']);
  });

  it('cleanupOldJobEvents removes the added events of jobs added before the cutoff, in batches, and keeps later ones', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const [plain, batched] = await q.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'a', payload: {} },
    ]);
    const tagged = await q.addJob({ jobType: 'a', payload: {}, tags: ['t'] });
    clock.advance(2 * DAY);
    const recent = await q.addJob({ jobType: 'a', payload: {} });
    const cutoff = new Date(T0.getTime() + DAY);
    expect(await backendOf(q).cleanupOldJobEvents({ olderThan: cutoff, batchSize: 1 })).toBe(3);
    for (const id of [plain!, batched!, tagged]) expect(await q.getJobEvents(id)).toEqual([]);
    expect((await q.getJobEvents(recent)).map((e) => e.eventType)).toEqual(['added']);
    expect(await backendOf(q).cleanupOldJobEvents({ olderThan: cutoff, batchSize: 1 })).toBe(0);
  });

  it('never removes the added event of a job added after the cutoff, even when a job added later reads older', async () => {
    // A job added at a later time first, then one whose clock reads earlier (producers whose
    // clocks disagree): the first is younger than the cutoff, so both keep their event.
    const clock = new ManualClock(new Date(T0.getTime() + 2 * DAY));
    const q = ctx.makeQueue({ clock });
    const young = await q.addJob({ jobType: 'a', payload: {} });
    clock.set(T0);
    const backdated = await q.addJob({ jobType: 'a', payload: {} });
    expect(await backendOf(q).cleanupOldJobEvents({ olderThan: new Date(T0.getTime() + DAY), batchSize: 10 })).toBe(0);
    for (const id of [young, backdated]) expect((await q.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added']);
  });
});
