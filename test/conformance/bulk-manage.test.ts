/**
 * Acting on many jobs, or removing one (SPEC §4.3, §3; DETAILS "Retries, failures, reclaim"):
 * retryAllFailedJobs, countJobs and deleteJob.
 */
import { expect, it } from 'vitest';
import { JobStatusError, NotFoundError, ValidationError } from '../../src/errors.js';
import { forEachBackend, ManualClock } from '../helpers/backends.js';
import { expectFailure, ids } from './assertions.js';
import { addFailedJobs, claimJob, completeJob, DAY_MS, failJob } from './job-states.js';

const T0 = new Date('2030-06-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
forEachBackend('retryAllFailedJobs (§4.3, §3)', (ctx) => {
  it('retries every failed job matching the filter, as retryJob does each, and returns their number', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const emails = await addFailedJobs(q, 'email', 3);
    const sms = await addFailedJobs(q, 'sms', 2);
    clock.advance(5_000);
    const retried: number[] = [];
    q.on('job:retried', ({ jobId }) => retried.push(jobId));

    expect(await q.retryAllFailedJobs({ jobType: 'email' })).toBe(3);
    for (const id of emails) {
      const job = await q.getJob(id);
      expect(job).toMatchObject({ status: 'pending', attempts: 0, lastRetriedAt: at(5_000) });
      expect(job?.errorHistory.map((e) => e.message)).toEqual(['boom']);
      expect((await q.getJobEvents(id)).at(-1)).toMatchObject({ eventType: 'retried', createdAt: at(5_000) });
    }
    expect(retried.sort((a, b) => a - b)).toEqual(emails);
    for (const id of sms) expect(await q.getJob(id)).toMatchObject({ status: 'failed' });
  });

  it('retries every failed job without a filter, and only failed ones', async () => {
    const clock = new ManualClock(T0);
    const q = ctx.makeQueue({ clock });
    const failed = await addFailedJobs(q, 'a', 2);
    const retrying = await q.addJob({ jobType: 'r', payload: {} });
    await failJob(q, retrying, { retryAt: at(DAY_MS) });
    const [pending, cancelled, completed, processing] = await q.addJobs([
      { jobType: 'p', payload: {} },
      { jobType: 'x', payload: {} },
      { jobType: 'c', payload: {} },
      { jobType: 'w', payload: {} },
    ]);
    await q.cancelJob(cancelled!);
    await completeJob(q, completed!);
    await claimJob(q, processing!);

    expect(await q.retryAllFailedJobs()).toBe(3);
    for (const id of [...failed, retrying]) expect(await q.getJob(id)).toMatchObject({ status: 'pending' });
    expect(await q.getJob(pending!)).toMatchObject({ status: 'pending', lastRetriedAt: null });
    expect(await q.getJob(cancelled!)).toMatchObject({ status: 'cancelled' });
    expect(await q.getJob(completed!)).toMatchObject({ status: 'completed' });
    expect(await q.getJob(processing!)).toMatchObject({ status: 'processing' });
  });

  it('retries all of more failed jobs than one slice or batch takes, each once', async () => {
    const q = ctx.queue;
    const failed = await addFailedJobs(q, 'bulk', 60, ['t']);
    const other = await addFailedJobs(q, 'bulk', 3);
    expect(await q.retryAllFailedJobs({ tags: { values: ['t'] } })).toBe(60);
    const pending = await q.queryJobs({ status: 'pending' });
    expect(ids(pending).sort((a, b) => a - b)).toEqual(failed);
    for (const id of failed) {
      expect((await q.getJobEvents(id)).filter((e) => e.eventType === 'retried')).toHaveLength(1);
    }
    expect(ids(await q.queryJobs({ status: 'failed' })).sort((a, b) => a - b)).toEqual(other);
  });

  it('makes the retried jobs claimable again', async () => {
    const q = ctx.queue;
    const [id] = await addFailedJobs(q, 'again', 1);
    await q.retryAllFailedJobs({ jobType: 'again' });
    await claimJob(q, id!);
    expect(await q.getJob(id!)).toMatchObject({ status: 'processing', attempts: 1 });
  });

  it('returns 0 when no failed job matches', async () => {
    await addFailedJobs(ctx.queue, 'a', 1);
    expect(await ctx.queue.retryAllFailedJobs({ jobType: 'b' })).toBe(0);
  });

  it('refuses a bad filter with a ValidationError naming the field', async () => {
    await expectFailure(ctx.queue.retryAllFailedJobs({ jobType: '' }), ValidationError, { field: 'filter.jobType' });
  });
});

forEachBackend('countJobs (§4.2)', (ctx) => {
  it('counts the jobs matching a status and filter', async () => {
    const q = ctx.queue;
    await addFailedJobs(q, 'email', 4, ['eu']);
    await addFailedJobs(q, 'sms', 2, ['eu']);
    await q.addJobs([
      { jobType: 'email', payload: {} },
      { jobType: 'email', payload: {}, tags: ['eu'] },
    ]);
    expect(await q.countJobs()).toBe(8);
    expect(await q.countJobs({ status: 'failed' })).toBe(6);
    expect(await q.countJobs({ status: 'failed', jobType: 'email' })).toBe(4);
    expect(await q.countJobs({ jobType: 'email' })).toBe(6);
    expect(await q.countJobs({ status: 'pending', tags: { values: ['eu'] } })).toBe(1);
    expect(await q.countJobs({ status: 'cancelled' })).toBe(0);
  });

  it('counts no further than the limit', async () => {
    const q = ctx.queue;
    await addFailedJobs(q, 'email', 30, ['x']);
    await q.addJobs(Array.from({ length: 5 }, () => ({ jobType: 'email', payload: {} })));
    expect(await q.countJobs({ status: 'failed' }, 10)).toBe(10);
    expect(await q.countJobs({ status: 'failed', tags: { values: ['x'] } }, 29)).toBe(29);
    expect(await q.countJobs({ status: 'failed', tags: { values: ['x'] } }, 31)).toBe(30);
    expect(await q.countJobs({ jobType: 'email' }, 100)).toBe(35);
    expect(await q.countJobs({}, 0)).toBe(0);
  });

  it('refuses a bad limit or filter with a ValidationError naming it', async () => {
    await expectFailure(ctx.queue.countJobs({}, -1), ValidationError, { field: 'limit' });
    await expectFailure(ctx.queue.countJobs({ status: 'nope' as 'failed' }), ValidationError, {
      field: 'filter.status',
    });
  });
});

forEachBackend('deleteJob (§4.3)', (ctx) => {
  it('deletes a completed, a cancelled and a failed job with their events', async () => {
    const q = ctx.queue;
    const [completed, cancelled, keep] = await q.addJobs([
      { jobType: 'c', payload: {}, idempotencyKey: 'once' },
      { jobType: 'x', payload: {}, tags: ['t'] },
      { jobType: 'k', payload: {}, tags: ['t'] },
    ]);
    const [failed] = await addFailedJobs(q, 'f', 1);
    await completeJob(q, completed!, { done: true });
    await q.cancelJob(cancelled!);
    for (const id of [completed!, cancelled!, failed!]) {
      await q.deleteJob(id);
      expect(await q.getJob(id)).toBeNull();
      expect(await q.getJobEvents(id)).toEqual([]);
    }
    // Gone from every listing and index: status, type, tags, idempotency key.
    expect(ids(await q.getAllJobs())).toEqual([keep]);
    expect(await q.countJobs({ status: 'completed' })).toBe(0);
    expect(ids(await q.getJobs({ tags: { values: ['t'] } }))).toEqual([keep]);
    expect(await q.getJobs({ jobType: 'c' })).toEqual([]);
    expect(await q.addJob({ jobType: 'c', payload: {}, idempotencyKey: 'once' })).not.toBe(completed);
  });

  it('leaves a dependent of a deleted completed job free to run', async () => {
    const q = ctx.queue;
    const prerequisite = await q.addJob({ jobType: 'first', payload: {} });
    const dependent = await q.addJob({ jobType: 'second', payload: {}, dependsOn: { jobIds: [prerequisite] } });
    await completeJob(q, prerequisite);
    await q.deleteJob(prerequisite);
    await claimJob(q, dependent);
    expect(await q.getJob(dependent)).toMatchObject({ status: 'processing' });
  });

  it.each(['pending', 'processing', 'waiting', 'waiting-for-retry'] as const)(
    'refuses a %s job with a JobStatusError naming the status, and changes nothing',
    async (state) => {
      const clock = new ManualClock(T0);
      const q = ctx.makeQueue({ clock });
      const id = await q.addJob({ jobType: 'solo', payload: {} });
      if (state === 'processing') await claimJob(q, id);
      if (state === 'waiting-for-retry') await failJob(q, id, { retryAt: at(DAY_MS) });
      if (state === 'waiting') {
        await q
          .createProcessor({ solo: async (_p, _s, job) => job.waitFor({ hours: 1 }) }, { jobType: 'solo' })
          .start();
        expect(await q.getJob(id)).toMatchObject({ status: 'waiting' });
      }
      const before = await q.getJob(id);
      const events = await q.getJobEvents(id);
      const status = state === 'waiting-for-retry' ? 'failed' : state;
      const error = await expectFailure(q.deleteJob(id), JobStatusError, {
        message: [`job ${id}`, state === 'waiting-for-retry' ? 'failed with an automatic retry still due' : status],
      });
      expect(error).toMatchObject({ jobId: id, status, code: 'JOB_STATUS_CONFLICT' });
      expect(await q.getJob(id)).toEqual(before);
      expect(await q.getJobEvents(id)).toEqual(events);
    },
  );

  it('throws NotFoundError for an unknown id and ValidationError for a bad one', async () => {
    await expectFailure(ctx.queue.deleteJob(987_654), NotFoundError, { message: ['987654'] });
    await expectFailure(ctx.queue.deleteJob(0), ValidationError, { field: 'jobId' });
  });
});
