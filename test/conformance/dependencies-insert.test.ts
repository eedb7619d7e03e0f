/**
 * Dependencies at insert time and cascading cancellation (SPEC §4.8 rules 1 and 4, §3 rows
 * "a prerequisite job ends failed or cancelled" and "a tag-barrier job fails or is cancelled",
 * §7; DETAILS "cancelled: { cascadeFrom }"). Eligibility of dependents for claiming belongs to
 * the processing suite.
 */
import { expect, it } from 'vitest';
import { DependencyError, ValidationError } from '../../src/errors.js';
import { batchDepRef } from '../../src/queue.js';
import { forEachBackend } from '../helpers/backends.js';
import { expectFailure, ids } from './assertions.js';
import { completeJob, failJob } from './job-states.js';

forEachBackend('dependsOn at insert (§4.8 rule 1, §7)', (ctx) => {
  it('rejects an unknown prerequisite id with a DependencyError and writes nothing', async () => {
    await expectFailure(
      ctx.queue.addJob({ jobType: 'b', payload: {}, dependsOn: { jobIds: [424_242] } }),
      DependencyError,
      { message: ['424242'] },
    );
    expect(await ctx.queue.getAllJobs()).toEqual([]);
  });

  it('rejects a whole addJobs batch when one job names an unknown id', async () => {
    const known = await ctx.queue.addJob({ jobType: 'a', payload: {} });
    await expectFailure(
      ctx.queue.addJobs([
        { jobType: 'b', payload: {}, dependsOn: { jobIds: [known] } },
        { jobType: 'c', payload: {}, dependsOn: { jobIds: [known, 424_242] } },
        { jobType: 'd', payload: {} },
      ]),
      DependencyError,
      { message: ['424242'] },
    );
    expect(ids(await ctx.queue.getAllJobs())).toEqual([known]);
    expect((await ctx.queue.getJobEvents(known)).map((e) => e.eventType)).toEqual(['added']);
  });

  it('rejects a job naming its own future id (it does not exist yet)', async () => {
    const previous = await ctx.queue.addJob({ jobType: 'a', payload: {} });
    await expectFailure(
      ctx.queue.addJob({ jobType: 'b', payload: {}, dependsOn: { jobIds: [previous + 1] } }),
      DependencyError,
    );
    expect(ids(await ctx.queue.getAllJobs())).toEqual([previous]);
  });

  it('rejects a negative placeholder in addJob', async () => {
    await expectFailure(
      ctx.queue.addJob({ jobType: 'b', payload: {}, dependsOn: { jobIds: [batchDepRef(0)] } }),
      DependencyError,
      { message: ['dependsOn.jobIds[0]', 'addJobs'] },
    );
    expect(await ctx.queue.getAllJobs()).toEqual([]);
  });

  it('rejects a self-reference in addJobs and writes nothing', async () => {
    await expectFailure(
      ctx.queue.addJobs([
        { jobType: 'a', payload: {} },
        { jobType: 'b', payload: {}, dependsOn: { jobIds: [batchDepRef(1)] } },
      ]),
      DependencyError,
      { message: ['jobs[1].dependsOn.jobIds[0]', 'itself'] },
    );
    expect(await ctx.queue.getAllJobs()).toEqual([]);
  });

  it('rejects a two-job cycle in addJobs and writes nothing', async () => {
    await expectFailure(
      ctx.queue.addJobs([
        { jobType: 'a', payload: {}, dependsOn: { jobIds: [batchDepRef(1)] } },
        { jobType: 'b', payload: {}, dependsOn: { jobIds: [batchDepRef(0)] } },
      ]),
      DependencyError,
      { message: ['cycle', 'jobs[0]', 'jobs[1]'] },
    );
    expect(await ctx.queue.getAllJobs()).toEqual([]);
  });

  it('rejects a longer cycle behind a valid chain and writes nothing', async () => {
    await expectFailure(
      ctx.queue.addJobs([
        { jobType: 'root', payload: {} },
        { jobType: 'a', payload: {}, dependsOn: { jobIds: [batchDepRef(0), batchDepRef(3)] } },
        { jobType: 'b', payload: {}, dependsOn: { jobIds: [batchDepRef(1)] } },
        { jobType: 'c', payload: {}, dependsOn: { jobIds: [batchDepRef(2)] } },
      ]),
      DependencyError,
      { message: ['cycle'] },
    );
    expect(await ctx.queue.getAllJobs()).toEqual([]);
  });

  it('rejects a placeholder beyond the batch and writes nothing', async () => {
    await expectFailure(
      ctx.queue.addJobs([
        { jobType: 'a', payload: {} },
        { jobType: 'b', payload: {}, dependsOn: { jobIds: [batchDepRef(2)] } },
      ]),
      DependencyError,
      { message: ['jobs[1].dependsOn.jobIds[0]', '-3', '2 jobs'] },
    );
    expect(await ctx.queue.getAllJobs()).toEqual([]);
  });

  it('rejects 0 and non-integer ids with a ValidationError', async () => {
    for (const bad of [0, 1.5, Number.NaN, '1']) {
      await expectFailure(
        ctx.queue.addJob({ jobType: 'b', payload: {}, dependsOn: { jobIds: [bad as number] } }),
        ValidationError,
        { field: 'dependsOn.jobIds[0]' },
      );
    }
    expect(await ctx.queue.getAllJobs()).toEqual([]);
  });

  it('rejects a prerequisite that is already cancelled and writes nothing', async () => {
    const gone = await ctx.queue.addJob({ jobType: 'a', payload: {} });
    await ctx.queue.cancelJob(gone);
    await expectFailure(
      ctx.queue.addJob({ jobType: 'b', payload: {}, dependsOn: { jobIds: [gone] } }),
      DependencyError,
      { message: [String(gone)] },
    );
    expect(ids(await ctx.queue.getAllJobs())).toEqual([gone]);
  });

  it('rejects a prerequisite that already ended failed and writes nothing', async () => {
    const broken = await ctx.queue.addJob({ jobType: 'broken', payload: {} });
    await failJob(ctx.queue, broken);
    await expectFailure(
      ctx.queue.addJob({ jobType: 'b', payload: {}, dependsOn: { jobIds: [broken] } }),
      DependencyError,
      { message: [String(broken)] },
    );
    expect(ids(await ctx.queue.getAllJobs())).toEqual([broken]);
  });

  it('accepts a prerequisite that is already completed', async () => {
    const done = await ctx.queue.addJob({ jobType: 'done', payload: {} });
    await completeJob(ctx.queue, done);
    const id = await ctx.queue.addJob({ jobType: 'b', payload: {}, dependsOn: { jobIds: [done] } });
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'pending', dependsOnJobIds: [done] });
  });

  it('stores dependsOnJobIds (deduplicated, in order) and dependsOnTags', async () => {
    const [a, b] = await ctx.queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {} },
    ]);
    const id = await ctx.queue.addJob({
      jobType: 'c',
      payload: {},
      dependsOn: { jobIds: [b!, a!, b!], tags: ['import', 'eu', 'import'] },
    });
    expect(await ctx.queue.getJob(id)).toMatchObject({ dependsOnJobIds: [b, a], dependsOnTags: ['import', 'eu'] });
  });

  it('stores null for empty dependency lists', async () => {
    const id = await ctx.queue.addJob({ jobType: 'c', payload: {}, dependsOn: { jobIds: [], tags: [] } });
    expect(await ctx.queue.getJob(id)).toMatchObject({ dependsOnJobIds: null, dependsOnTags: null });
  });

  it('accepts tag dependencies that no job carries', async () => {
    const id = await ctx.queue.addJob({ jobType: 'c', payload: {}, dependsOn: { tags: ['nobody'] } });
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'pending', dependsOnTags: ['nobody'] });
  });
});

forEachBackend('cascading cancellation (§3, DETAILS)', (ctx) => {
  it('cancels pending dependents transitively with cancelled events { cascadeFrom }', async () => {
    const cancelledHooks: number[] = [];
    ctx.queue.on('job:cancelled', ({ jobId }) => cancelledHooks.push(jobId));
    const [a, b, c, d] = await ctx.queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {}, dependsOn: { jobIds: [batchDepRef(0)] } },
      { jobType: 'c', payload: {}, dependsOn: { jobIds: [batchDepRef(1)] } },
      { jobType: 'd', payload: {} },
    ]);
    await ctx.queue.cancelJob(a!);

    for (const id of [a, b, c]) expect((await ctx.queue.getJob(id!))?.status).toBe('cancelled');
    expect((await ctx.queue.getJob(d!))?.status).toBe('pending');
    const cancelledEvent = async (id: number) =>
      (await ctx.queue.getJobEvents(id)).filter((e) => e.eventType === 'cancelled').map((e) => e.metadata);
    expect(await cancelledEvent(a!)).toEqual([null]);
    expect(await cancelledEvent(b!)).toEqual([{ cascadeFrom: a }]);
    expect(await cancelledEvent(c!)).toEqual([{ cascadeFrom: b }]);
    expect(await cancelledEvent(d!)).toEqual([]);
    expect([...cancelledHooks].sort((x, y) => x - y)).toEqual([a, b, c]);
    expect(cancelledHooks[0]).toBe(a);
  });

  it('sets lastCancelledAt on cascaded dependents', async () => {
    const a = await ctx.queue.addJob({ jobType: 'a', payload: {} });
    const b = await ctx.queue.addJob({ jobType: 'b', payload: {}, dependsOn: { jobIds: [a] } });
    await ctx.queue.cancelJob(a);
    const [ja, jb] = [await ctx.queue.getJob(a), await ctx.queue.getJob(b)];
    expect(jb?.lastCancelledAt).toEqual(ja?.lastCancelledAt);
    expect(jb?.lastCancelledAt).toBeInstanceOf(Date);
  });

  it('cancels a dependent with several prerequisites when one of them is cancelled', async () => {
    const [p1, p2, dep] = await ctx.queue.addJobs([
      { jobType: 'p1', payload: {} },
      { jobType: 'p2', payload: {} },
      { jobType: 'dep', payload: {}, dependsOn: { jobIds: [batchDepRef(0), batchDepRef(1)] } },
    ]);
    await ctx.queue.cancelJob(p2!);
    expect((await ctx.queue.getJob(dep!))?.status).toBe('cancelled');
    expect((await ctx.queue.getJob(p1!))?.status).toBe('pending');
  });

  it('leaves dependents that are no longer pending alone', async () => {
    const [a, b] = await ctx.queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {}, dependsOn: { jobIds: [batchDepRef(0)] } },
    ]);
    await ctx.queue.cancelJob(b!);
    const before = await ctx.queue.getJob(b!);
    await ctx.queue.cancelJob(a!);
    expect(await ctx.queue.getJob(b!)).toEqual(before);
    expect((await ctx.queue.getJobEvents(b!)).filter((e) => e.eventType === 'cancelled')).toHaveLength(1);
  });

  it('cascades from cancelAllUpcomingJobs too', async () => {
    const [a, b] = await ctx.queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {}, dependsOn: { jobIds: [batchDepRef(0)] } },
    ]);
    await ctx.queue.cancelAllUpcomingJobs({ jobType: 'a' });
    expect((await ctx.queue.getJob(b!))?.status).toBe('cancelled');
    expect(
      (await ctx.queue.getJobEvents(b!)).filter((e) => e.eventType === 'cancelled').map((e) => e.metadata),
    ).toEqual([{ cascadeFrom: a }]);
  });

  it('cancels tag-barrier dependents when a barrier job is cancelled, transitively', async () => {
    const cancelledHooks: number[] = [];
    ctx.queue.on('job:cancelled', ({ jobId }) => cancelledHooks.push(jobId));
    const [barrier, waiter, afterWaiter, partial, unrelated] = await ctx.queue.addJobs([
      { jobType: 'import', payload: {}, tags: ['import', 'eu'] },
      { jobType: 'report', payload: {}, dependsOn: { tags: ['import'] } },
      { jobType: 'mail', payload: {}, dependsOn: { jobIds: [batchDepRef(1)] } },
      // Needs a job carrying both tags: the barrier carries only one of them.
      { jobType: 'report', payload: {}, dependsOn: { tags: ['import', 'us'] } },
      { jobType: 'other', payload: {}, tags: ['import'] },
    ]);
    await ctx.queue.cancelJob(barrier!);

    expect((await ctx.queue.getJob(waiter!))?.status).toBe('cancelled');
    expect((await ctx.queue.getJob(afterWaiter!))?.status).toBe('cancelled');
    expect((await ctx.queue.getJob(partial!))?.status).toBe('pending');
    expect((await ctx.queue.getJob(unrelated!))?.status).toBe('pending');
    const metadata = async (id: number) =>
      (await ctx.queue.getJobEvents(id)).filter((e) => e.eventType === 'cancelled').map((e) => e.metadata);
    expect(await metadata(waiter!)).toEqual([{ cascadeFrom: barrier }]);
    expect(await metadata(afterWaiter!)).toEqual([{ cascadeFrom: waiter }]);
    expect([...cancelledHooks].sort((x, y) => x - y)).toEqual([barrier, waiter, afterWaiter]);
  });

  it('does not treat a job as its own tag barrier', async () => {
    const [self, other] = await ctx.queue.addJobs([
      { jobType: 'a', payload: {}, tags: ['batch'], dependsOn: { tags: ['batch'] } },
      { jobType: 'b', payload: {}, tags: ['x'] },
    ]);
    await ctx.queue.cancelJob(self!);
    expect((await ctx.queue.getJob(other!))?.status).toBe('pending');
  });

  it('cancels dependents when a prerequisite ends failed with no retry left', async () => {
    const [broken, dep] = await ctx.queue.addJobs([
      { jobType: 'broken', payload: {} },
      { jobType: 'dep', payload: {}, dependsOn: { jobIds: [batchDepRef(0)] } },
    ]);
    await failJob(ctx.queue, broken!);
    expect((await ctx.queue.getJob(dep!))?.status).toBe('cancelled');
    expect(
      (await ctx.queue.getJobEvents(dep!)).filter((e) => e.eventType === 'cancelled').map((e) => e.metadata),
    ).toEqual([{ cascadeFrom: broken }]);
  });

  it('keeps dependents pending while the prerequisite awaits an automatic retry', async () => {
    const [broken, dep] = await ctx.queue.addJobs([
      { jobType: 'broken', payload: {} },
      { jobType: 'dep', payload: {}, dependsOn: { jobIds: [batchDepRef(0)] } },
    ]);
    await failJob(ctx.queue, broken!, { retryAt: new Date(Date.now() + 3_600_000) });
    expect((await ctx.queue.getJob(dep!))?.status).toBe('pending');
  });
});
