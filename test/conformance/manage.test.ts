/**
 * Managing jobs (SPEC §4.3, §3): retryJob, cancelJob, editJob, editAllPendingJobs,
 * cancelAllUpcomingJobs, cleanupOldJobs, cleanupOldJobEvents.
 */
import { expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import type { EditJobOptions, JobRecord } from '../../src/types.js';
import { forEachBackend, ManualClock } from '../helpers/backends.js';
import { expectFailure, ids } from './assertions.js';
import { claimJob, completeJob, DAY_MS, failJob } from './job-states.js';

const T0 = new Date('2030-06-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

forEachBackend('retryJob (§4.3, §3)', (ctx) => {
  it('moves a failed job to pending with attempts reset, lastRetriedAt set and errorHistory kept', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({ jobType: 'broken', payload: {}, maxAttempts: 1 });
    await failJob(q, id, { message: 'disk full' });
    expect(await q.getJob(id)).toMatchObject({ status: 'failed', attempts: 1 });

    clock.advance(5_000);
    await q.retryJob(id);
    const job = await q.getJob(id);
    expect(job).toMatchObject({ status: 'pending', attempts: 0, lastRetriedAt: at(5_000), updated_at: at(5_000) });
    expect(job?.errorHistory.map((e) => e.message)).toEqual(['disk full']);
    expect((await q.getJobEvents(id)).at(-1)).toMatchObject({ eventType: 'retried', createdAt: at(5_000) });
  });

  it('moves a failed job that still awaits its automatic retry to pending', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({ jobType: 'broken', payload: {} });
    await failJob(q, id, { retryAt: at(3_600_000) });
    await q.retryJob(id);
    expect(await q.getJob(id)).toMatchObject({ status: 'pending', attempts: 0, lastRetriedAt: T0 });
  });

  it('moves a cancelled job to pending', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({ jobType: 'email', payload: {} });
    await q.cancelJob(id);
    clock.advance(1_000);
    await q.retryJob(id);
    expect(await q.getJob(id)).toMatchObject({ status: 'pending', attempts: 0, lastRetriedAt: at(1_000) });
  });

  it('makes a retried job claimable again', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({ jobType: 'broken', payload: {}, maxAttempts: 1 });
    await failJob(q, id);
    await q.retryJob(id);
    await claimJob(q, id);
    expect(await q.getJob(id)).toMatchObject({ status: 'processing', attempts: 1 });
  });

  it.each(['pending', 'processing', 'completed'] as const)('does nothing to a %s job', async (status) => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({ jobType: 'solo', payload: {} });
    if (status === 'processing') await claimJob(q, id);
    if (status === 'completed') await completeJob(q, id);
    const before = await q.getJob(id);
    const eventsBefore = await q.getJobEvents(id);
    clock.advance(1_000);
    await q.retryJob(id);
    expect(await q.getJob(id)).toEqual(before);
    expect(await q.getJobEvents(id)).toEqual(eventsBefore);
  });

  it('resolves for an unknown job id', async () => {
    await expect(ctx.queue.retryJob(987_654)).resolves.toBeUndefined();
  });
});

forEachBackend('cancelJob (§4.3, §3)', (ctx) => {
  it('cancels a pending job and sets lastCancelledAt', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({ jobType: 'email', payload: {} });
    clock.advance(2_000);
    await q.cancelJob(id);
    expect(await q.getJob(id)).toMatchObject({
      status: 'cancelled',
      lastCancelledAt: at(2_000),
      updated_at: at(2_000),
    });
  });

  it('cancels a pending job whose runAt is in the future', async () => {
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {}, runAt: new Date(Date.now() + DAY_MS) });
    await ctx.queue.cancelJob(id);
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'cancelled' });
  });

  it('does nothing to a job already cancelled (lastCancelledAt unchanged, one event)', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({ jobType: 'email', payload: {} });
    await q.cancelJob(id);
    const before = await q.getJob(id);
    clock.advance(1_000);
    await q.cancelJob(id);
    expect(await q.getJob(id)).toEqual(before);
    expect((await q.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added', 'cancelled']);
  });

  it.each(['processing', 'completed', 'failed'] as const)('does nothing to a %s job', async (status) => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({ jobType: 'solo', payload: {} });
    if (status === 'processing') await claimJob(q, id);
    if (status === 'completed') await completeJob(q, id);
    if (status === 'failed') await failJob(q, id);
    const before = await q.getJob(id);
    const eventsBefore = await q.getJobEvents(id);
    clock.advance(1_000);
    await q.cancelJob(id);
    expect(await q.getJob(id)).toEqual(before);
    expect(await q.getJobEvents(id)).toEqual(eventsBefore);
  });

  it('resolves for an unknown job id', async () => {
    await expect(ctx.queue.cancelJob(987_654)).resolves.toBeUndefined();
  });

  it('leaves other jobs alone', async () => {
    const [a, b] = await ctx.queue.addJobs([
      { jobType: 'email', payload: {} },
      { jobType: 'email', payload: {} },
    ]);
    await ctx.queue.cancelJob(a!);
    expect(await ctx.queue.getJob(b!)).toMatchObject({ status: 'pending', lastCancelledAt: null });
  });
});

/** A pending job with every editable field set, so each edit is a visible change. */
const FULL_JOB = {
  jobType: 'email',
  payload: { to: 'a@example.com' },
  maxAttempts: 4,
  priority: 2,
  runAt: new Date('2030-07-01T00:00:00.000Z'),
  timeoutMs: 1_000,
  tags: ['a'],
  retryDelay: 10,
  retryBackoff: true,
  retryDelayMax: 100,
  deadLetterJobType: 'email-dead',
};

const SINGLE_EDITS: [string, EditJobOptions, Partial<JobRecord>][] = [
  ['payload', { payload: { to: 'b@example.com', cc: ['c'] } }, { payload: { to: 'b@example.com', cc: ['c'] } }],
  ['maxAttempts', { maxAttempts: 9 }, { maxAttempts: 9 }],
  ['priority', { priority: -3 }, { priority: -3 }],
  ['runAt', { runAt: new Date('2031-01-01T00:00:00.000Z') }, { runAt: new Date('2031-01-01T00:00:00.000Z') }],
  ['timeoutMs', { timeoutMs: 2_500 }, { timeoutMs: 2_500 }],
  ['tags', { tags: ['x', 'y'] }, { tags: ['x', 'y'] }],
  ['tags to empty', { tags: [] }, { tags: [] }],
  ['retryDelay', { retryDelay: 30 }, { retryDelay: 30 }],
  ['retryBackoff', { retryBackoff: false }, { retryBackoff: false }],
  ['retryDelayMax', { retryDelayMax: 5 }, { retryDelayMax: 5 }],
  ['deadLetterJobType', { deadLetterJobType: 'other-dead' }, { deadLetterJobType: 'other-dead' }],
  ['retryDelay to null', { retryDelay: null }, { retryDelay: null }],
  ['retryBackoff to null', { retryBackoff: null }, { retryBackoff: null }],
  ['retryDelayMax to null', { retryDelayMax: null }, { retryDelayMax: null }],
  [
    'all retry fields to null',
    { retryDelay: null, retryBackoff: null, retryDelayMax: null },
    { retryDelay: null, retryBackoff: null, retryDelayMax: null },
  ],
  ['deadLetterJobType to null', { deadLetterJobType: null }, { deadLetterJobType: null }],
  ['payload to null', { payload: null }, { payload: null }],
];

forEachBackend('editJob (§4.3, §2.6)', (ctx) => {
  it.each(SINGLE_EDITS)('changes only %s', async (_label, updates, changed) => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob(FULL_JOB);
    const before = await q.getJob(id);
    clock.advance(7_000);
    await q.editJob(id, updates);
    expect(await q.getJob(id)).toEqual({ ...before, ...changed, updated_at: at(7_000), updatedAt: at(7_000) });
  });

  it('changes several fields at once and leaves the others', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob(FULL_JOB);
    const before = await q.getJob(id);
    await q.editJob(id, { priority: 8, tags: ['z'], retryBackoff: null });
    expect(await q.getJob(id)).toEqual({ ...before, priority: 8, tags: ['z'], retryBackoff: null });
  });

  it('sets runAt to now when given null', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob(FULL_JOB);
    clock.advance(60_000);
    await q.editJob(id, { runAt: null });
    expect((await q.getJob(id))?.runAt).toEqual(at(60_000));
  });

  it('refuses jobType with a ValidationError and changes nothing', async () => {
    const id = await ctx.queue.addJob(FULL_JOB);
    const before = await ctx.queue.getJob(id);
    await expectFailure(ctx.queue.editJob(id, { jobType: 'sms', priority: 9 } as EditJobOptions), ValidationError, {
      field: 'updates.jobType',
      message: ['jobType', 'cannot be changed'],
    });
    expect(await ctx.queue.getJob(id)).toEqual(before);
    expect((await ctx.queue.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added']);
  });

  it('refuses an unknown field with a ValidationError and changes nothing', async () => {
    const id = await ctx.queue.addJob(FULL_JOB);
    const before = await ctx.queue.getJob(id);
    await expectFailure(ctx.queue.editJob(id, { priority: 9, colour: 'red' } as EditJobOptions), ValidationError, {
      field: 'updates.colour',
      message: ['`updates.colour`'],
    });
    expect(await ctx.queue.getJob(id)).toEqual(before);
  });

  it('does nothing for an empty update', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob(FULL_JOB);
    const before = await q.getJob(id);
    clock.advance(1_000);
    await q.editJob(id, {});
    expect(await q.getJob(id)).toEqual(before);
    expect((await q.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added']);
  });

  it.each(['cancelled', 'processing', 'completed', 'failed'] as const)('silently ignores a %s job', async (status) => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({ ...FULL_JOB, jobType: 'solo', runAt: T0 });
    if (status === 'cancelled') await q.cancelJob(id);
    if (status === 'processing') await claimJob(q, id);
    if (status === 'completed') await completeJob(q, id);
    if (status === 'failed') await failJob(q, id);
    const before = await q.getJob(id);
    const eventsBefore = await q.getJobEvents(id);
    clock.advance(1_000);
    await expect(q.editJob(id, { priority: 99, payload: { changed: true } })).resolves.toBeUndefined();
    expect(await q.getJob(id)).toEqual(before);
    expect(await q.getJobEvents(id)).toEqual(eventsBefore);
  });

  it('resolves for an unknown job id', async () => {
    await expect(ctx.queue.editJob(987_654, { priority: 1 })).resolves.toBeUndefined();
  });
});

forEachBackend('editAllPendingJobs (§4.3)', (ctx) => {
  it('edits the pending jobs matching the filter and returns their number', async () => {
    const [a1, a2, b1, a3] = await ctx.queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {} },
      { jobType: 'a', payload: {} },
    ]);
    await ctx.queue.cancelJob(a3!);
    expect(await ctx.queue.editAllPendingJobs({ jobType: 'a' }, { priority: 7 })).toBe(2);
    expect((await ctx.queue.getJob(a1!))?.priority).toBe(7);
    expect((await ctx.queue.getJob(a2!))?.priority).toBe(7);
    expect((await ctx.queue.getJob(b1!))?.priority).toBe(0);
    expect((await ctx.queue.getJob(a3!))?.priority).toBe(0);
  });

  it('filters by tags and runAt', async () => {
    const soon = new Date('2030-01-01T00:00:00.000Z');
    const later = new Date('2030-02-01T00:00:00.000Z');
    const [x, y, z] = await ctx.queue.addJobs([
      { jobType: 'a', payload: {}, tags: ['eu'], runAt: soon },
      { jobType: 'a', payload: {}, tags: ['eu'], runAt: later },
      { jobType: 'a', payload: {}, tags: ['us'], runAt: later },
    ]);
    expect(
      await ctx.queue.editAllPendingJobs({ tags: { values: ['eu'] }, runAt: { gt: soon } }, { maxAttempts: 9 }),
    ).toBe(1);
    expect((await ctx.queue.getJob(x!))?.maxAttempts).toBe(3);
    expect((await ctx.queue.getJob(y!))?.maxAttempts).toBe(9);
    expect((await ctx.queue.getJob(z!))?.maxAttempts).toBe(3);
  });

  it('edits every pending job when no filter is given', async () => {
    const added = await ctx.queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {} },
      { jobType: 'c', payload: {} },
    ]);
    await ctx.queue.cancelJob(added[2]!);
    expect(await ctx.queue.editAllPendingJobs(undefined, { tags: ['edited'] })).toBe(2);
    expect((await ctx.queue.getJobsByTags(['edited'])).map((j) => j.id).sort((p, q) => p - q)).toEqual(
      added.slice(0, 2),
    );
  });

  it('returns 0 and changes nothing for an update with no fields', async () => {
    await ctx.queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {} },
    ]);
    const before = await ctx.queue.getAllJobs();
    expect(await ctx.queue.editAllPendingJobs(undefined, {})).toBe(0);
    expect(await ctx.queue.editAllPendingJobs({ jobType: 'a' }, {})).toBe(0);
    expect(await ctx.queue.getAllJobs()).toEqual(before);
    for (const job of before) expect((await ctx.queue.getJobEvents(job.id)).map((e) => e.eventType)).toEqual(['added']);
  });

  it('returns 0 when nothing matches', async () => {
    await ctx.queue.addJob({ jobType: 'a', payload: {} });
    expect(await ctx.queue.editAllPendingJobs({ jobType: 'none' }, { priority: 1 })).toBe(0);
  });

  it('records one edited event per edited job, with the updated fields', async () => {
    const added = await ctx.queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {} },
    ]);
    expect(await ctx.queue.editAllPendingJobs({ jobType: 'a' }, { priority: 3, retryDelay: null })).toBe(2);
    for (const id of added.slice(0, 2)) {
      const events = await ctx.queue.getJobEvents(id);
      expect(events.map((e) => e.eventType)).toEqual(['added', 'edited']);
      expect(events[1]?.metadata).toEqual({ priority: 3, retryDelay: null });
    }
    expect((await ctx.queue.getJobEvents(added[2]!)).map((e) => e.eventType)).toEqual(['added']);
  });

  it('does not edit processing, completed or failed jobs', async () => {
    const [p, c, f, pending] = await ctx.queue.addJobs([
      { jobType: 'p', payload: {} },
      { jobType: 'c', payload: {} },
      { jobType: 'f', payload: {} },
      { jobType: 'pending', payload: {} },
    ]);
    await claimJob(ctx.queue, p!);
    await completeJob(ctx.queue, c!);
    await failJob(ctx.queue, f!);
    expect(await ctx.queue.editAllPendingJobs(undefined, { priority: 5 })).toBe(1);
    expect((await ctx.queue.getJob(pending!))?.priority).toBe(5);
    for (const id of [p!, c!, f!]) expect((await ctx.queue.getJob(id))?.priority).toBe(0);
  });
});

forEachBackend('cancelAllUpcomingJobs (§4.3)', (ctx) => {
  it('cancels the pending jobs matching the filter and returns their number', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const [a1, b1, a2] = await q.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {} },
      { jobType: 'a', payload: {} },
    ]);
    clock.advance(1_000);
    expect(await q.cancelAllUpcomingJobs({ jobType: 'a' })).toBe(2);
    for (const id of [a1!, a2!]) {
      expect(await q.getJob(id)).toMatchObject({ status: 'cancelled', lastCancelledAt: at(1_000) });
      expect((await q.getJobEvents(id)).map((e) => [e.eventType, e.metadata])).toEqual([
        ['added', expect.anything()],
        ['cancelled', null],
      ]);
    }
    expect(await q.getJob(b1!)).toMatchObject({ status: 'pending', lastCancelledAt: null });
  });

  it('cancels every pending job when no filter is given, and only those', async () => {
    const [pending1, done, cancelled, pending2] = await ctx.queue.addJobs([
      { jobType: 'x', payload: {} },
      { jobType: 'done', payload: {} },
      { jobType: 'x', payload: {} },
      { jobType: 'y', payload: {}, runAt: new Date(Date.now() + DAY_MS) },
    ]);
    await completeJob(ctx.queue, done!);
    await ctx.queue.cancelJob(cancelled!);
    expect(await ctx.queue.cancelAllUpcomingJobs()).toBe(2);
    expect(ids(await ctx.queue.getJobsByStatus('cancelled'))).toEqual([pending2, cancelled, pending1]);
    expect(await ctx.queue.getJob(done!)).toMatchObject({ status: 'completed' });
    expect((await ctx.queue.getJobEvents(cancelled!)).filter((e) => e.eventType === 'cancelled')).toHaveLength(1);
  });

  it('filters by runAt and tags', async () => {
    const now = new Date('2030-01-01T00:00:00.000Z');
    const [soon, later, laterOther] = await ctx.queue.addJobs([
      { jobType: 'a', payload: {}, tags: ['t'], runAt: now },
      { jobType: 'a', payload: {}, tags: ['t'], runAt: new Date(now.getTime() + DAY_MS) },
      { jobType: 'a', payload: {}, tags: ['u'], runAt: new Date(now.getTime() + DAY_MS) },
    ]);
    expect(await ctx.queue.cancelAllUpcomingJobs({ runAt: { gt: now }, tags: { values: ['t'], mode: 'any' } })).toBe(1);
    expect(ids(await ctx.queue.getJobsByStatus('cancelled'))).toEqual([later]);
    expect(ids(await ctx.queue.getJobsByStatus('pending'))).toEqual([laterOther, soon]);
  });

  it('returns 0 when nothing is pending', async () => {
    expect(await ctx.queue.cancelAllUpcomingJobs()).toBe(0);
    const id = await ctx.queue.addJob({ jobType: 'a', payload: {} });
    await ctx.queue.cancelJob(id);
    expect(await ctx.queue.cancelAllUpcomingJobs({ jobType: 'a' })).toBe(0);
  });
});

forEachBackend('cleanupOldJobs (§4.3, DETAILS)', (ctx) => {
  it('removes only finished jobs last updated more than N days ago, with their events', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const [completedOld, cancelledOld, failedOld, retryingOld, pendingOld, processingOld] = await q.addJobs([
      { jobType: 'c', payload: {} },
      { jobType: 'x', payload: {} },
      { jobType: 'f', payload: {} },
      { jobType: 'r', payload: {} },
      { jobType: 'p', payload: {}, runAt: at(DAY_MS * 365) },
      { jobType: 'w', payload: {} },
    ]);
    await completeJob(q, completedOld!);
    await q.cancelJob(cancelledOld!);
    await failJob(q, failedOld!);
    await failJob(q, retryingOld!, { retryAt: at(DAY_MS * 365) });
    await claimJob(q, processingOld!);

    clock.advance(20 * DAY_MS);
    const [completedNew, cancelledNew] = await q.addJobs([
      { jobType: 'c', payload: {} },
      { jobType: 'x', payload: {} },
    ]);
    await completeJob(q, completedNew!);
    await q.cancelJob(cancelledNew!);

    clock.advance(15 * DAY_MS); // old ones: 35 days, new ones: 15 days
    expect(await q.cleanupOldJobs(30)).toBe(3);
    for (const id of [completedOld!, cancelledOld!, failedOld!]) {
      expect(await q.getJob(id)).toBeNull();
      expect(await q.getJobEvents(id)).toEqual([]);
    }
    expect(ids(await q.getAllJobs())).toEqual([cancelledNew, completedNew, processingOld, pendingOld, retryingOld]);
    expect((await q.getJobEvents(pendingOld!)).map((e) => e.eventType)).toEqual(['added']);
  });

  it('counts the retention from the last update, not from creation', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const id = await q.addJob({ jobType: 'x', payload: {} });
    clock.advance(40 * DAY_MS);
    await q.cancelJob(id);
    clock.advance(10 * DAY_MS);
    expect(await q.cleanupOldJobs(30)).toBe(0);
    expect(await q.getJob(id)).not.toBeNull();
  });

  it('removes jobs older than exactly N days and keeps those not older', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const older = await q.addJob({ jobType: 'x', payload: {} });
    await q.cancelJob(older);
    clock.advance(2);
    const exact = await q.addJob({ jobType: 'x', payload: {} });
    await q.cancelJob(exact);
    clock.set(at(30 * DAY_MS + 2)); // `older` is 30 days + 2 ms old, `exact` 30 days
    expect(await q.cleanupOldJobs(30)).toBe(1);
    expect(await q.getJob(older)).toBeNull();
    expect(await q.getJob(exact)).not.toBeNull();
  });

  it('defaults to 30 days', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const old = await q.addJob({ jobType: 'x', payload: {} });
    await q.cancelJob(old);
    clock.advance(2 * DAY_MS);
    const young = await q.addJob({ jobType: 'x', payload: {} });
    await q.cancelJob(young);
    clock.advance(29 * DAY_MS); // old: 31 days, young: 29 days
    expect(await q.cleanupOldJobs()).toBe(1);
    expect(ids(await q.getAllJobs())).toEqual([young]);
  });

  it('removes every old job even when the batch size is smaller than their number', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const added = await q.addJobs(Array.from({ length: 25 }, (_, i) => ({ jobType: 'bulk', payload: { i } })));
    expect(await q.cancelAllUpcomingJobs()).toBe(25);
    const keep = await q.addJob({ jobType: 'keep', payload: {} });
    clock.advance(31 * DAY_MS);
    expect(await q.cleanupOldJobs(30, 10)).toBe(25);
    expect(ids(await q.getAllJobs())).toEqual([keep]);
    for (const id of added) expect(await q.getJobEvents(id)).toEqual([]);
  });

  it('returns 0 when there is nothing to remove', async () => {
    expect(await ctx.queue.cleanupOldJobs(30)).toBe(0);
  });
});

forEachBackend('cleanupOldJobEvents (§4.3, DETAILS)', (ctx) => {
  it('removes events created more than N days ago and keeps jobs and newer events', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const [a, b] = await q.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {} },
    ]);
    clock.advance(10 * DAY_MS);
    await q.editJob(a!, { priority: 1 });
    clock.advance(25 * DAY_MS); // added: 35 days old, edited: 25 days old
    expect(await q.cleanupOldJobEvents(30)).toBe(2);
    expect((await q.getJobEvents(a!)).map((e) => e.eventType)).toEqual(['edited']);
    expect(await q.getJobEvents(b!)).toEqual([]);
    expect(await q.getJob(a!)).toMatchObject({ status: 'pending', priority: 1 });
    expect(await q.getJob(b!)).toMatchObject({ status: 'pending' });
  });

  it('removes the events of processed jobs, a retried attempt included, and keeps those of a job processed since', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    // One job type each, so each claim takes its own job.
    const old = await q.addJobs(Array.from({ length: 6 }, (_, i) => ({ jobType: `t${String(i)}`, payload: {} })));
    await failJob(q, old[0]!, { retryAt: clock.now() });
    for (const id of old) await completeJob(q, id);
    clock.advance(31 * DAY_MS);
    const recent = await q.addJob({ jobType: 't0', payload: {} });
    await completeJob(q, recent);
    // 6 x (added, processing, completed), and the failed attempt's processing and failed events.
    expect(await q.cleanupOldJobEvents(30, 5)).toBe(20);
    for (const id of old) expect(await q.getJobEvents(id)).toEqual([]);
    expect((await q.getJobEvents(recent)).map((e) => e.eventType)).toEqual(['added', 'processing', 'completed']);
    expect(await q.cleanupOldJobEvents(30, 5)).toBe(0);
  });

  it('removes every old event even when the batch size is smaller than their number', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const added = await q.addJobs(Array.from({ length: 12 }, (_, i) => ({ jobType: 'bulk', payload: { i } })));
    clock.advance(31 * DAY_MS);
    await q.editJob(added[0]!, { priority: 2 });
    expect(await q.cleanupOldJobEvents(30, 5)).toBe(12);
    expect((await q.getJobEvents(added[0]!)).map((e) => e.eventType)).toEqual(['edited']);
    for (const id of added.slice(1)) expect(await q.getJobEvents(id)).toEqual([]);
  });
});
