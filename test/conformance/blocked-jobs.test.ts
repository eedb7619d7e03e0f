/**
 * Due jobs held back by a full group (SPEC §2.10 groupConcurrency) or a tag barrier (SPEC §4.8)
 * run as soon as the block ends, whatever ends it: the group's running job completes, fails
 * (with or without a retry), waits or is reclaimed; a barrier holder's tags change or it stops
 * being active (a failed job waiting for its retry is not active). Claims go through the
 * backend with one clock, so each step shows what a claim can take.
 */
import { expect, it } from 'vitest';
import type { JobQueue } from '../../src/index.js';
import { backendOf } from '../../src/queue.js';
import { forEachBackend } from '../helpers/backends.js';
import { failOne } from '../helpers/fail.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
const EARLIER = new Date(NOW.getTime() - 60_000);
const LATER = new Date(NOW.getTime() + 3_600_000);

forEachBackend('blocked due jobs run when the block ends (§2.10, §4.8)', (ctx) => {
  function claimer(queue: JobQueue, options: { groupConcurrency?: number; jobTypes?: string[] } = {}) {
    const backend = backendOf(queue);
    return async (batchSize = 10, now = NOW) =>
      (await backend.claimJobs({ workerId: 'w', batchSize, now, ...options })).map((j) => j.jobType);
  }

  /** A running job `a` of group g (limit 1) and two more of g, `b` before `c`, that the claim holds back. */
  async function fullGroup(queue: JobQueue, first: { maxAttempts?: number } = {}) {
    const group = { id: 'g' };
    const a = await queue.addJob({ jobType: 'a', payload: {}, group, priority: 9, runAt: EARLIER, ...first });
    const b = await queue.addJob({ jobType: 'b', payload: {}, group, priority: 5, runAt: EARLIER });
    await queue.addJob({ jobType: 'c', payload: {}, group, priority: 1, runAt: EARLIER });
    const claim = claimer(queue, { groupConcurrency: 1 });
    expect(await claim(1)).toEqual(['a']);
    expect(await claim()).toEqual([]);
    return { a, b, claim };
  }

  const endings: [string, (queue: JobQueue, id: number) => Promise<unknown>][] = [
    ['completes', (q, id) => backendOf(q).completeJobs([{ jobId: id, workerId: 'w' }], NOW)],
    [
      'fails and waits for a retry',
      (q, id) =>
        failOne(backendOf(q), {
          jobId: id,
          workerId: 'w',
          message: 'no',
          reason: 'handler_error',
          retryAt: LATER,
          now: NOW,
        }),
    ],
    [
      'fails for good',
      (q, id) =>
        failOne(backendOf(q), {
          jobId: id,
          workerId: 'w',
          message: 'no',
          reason: 'handler_error',
          retryAt: null,
          now: NOW,
        }),
    ],
    [
      'waits',
      (q, id) => backendOf(q).enterWait({ jobId: id, workerId: 'w', waitUntil: LATER, tokenId: null, now: NOW }),
    ],
  ];

  for (const [how, end] of endings) {
    it(`runs the best held-back job of a full group when its running job ${how}`, async () => {
      const { a, claim } = await fullGroup(ctx.queue);
      await end(ctx.queue, a);
      expect(await claim()).toEqual(['b']);
      expect(await claim()).toEqual([]);
    });
  }

  it('runs the best held-back job of a full group when its running job is reclaimed', async () => {
    const { claim } = await fullGroup(ctx.queue, { maxAttempts: 1 });
    const later = new Date(NOW.getTime() + 60_000);
    const reclaimed = await backendOf(ctx.queue).reclaimStuckJobs({ maxProcessingMs: 1_000, now: later });
    expect(reclaimed.failedIds).toHaveLength(1);
    expect(await claim(10, later)).toEqual(['b']);
  });

  /** A due job behind the tag barrier `t`, held by `holder` (added first, with `holderOptions`). */
  async function barrier(holderOptions: { runAt?: Date } = {}) {
    const holder = await ctx.queue.addJob({
      jobType: 'holder',
      payload: {},
      tags: ['t'],
      priority: 9,
      ...holderOptions,
    });
    const drain = await ctx.queue.addJob({ jobType: 'drain', payload: {}, dependsOn: { tags: ['t'] }, runAt: EARLIER });
    return { holder, drain, claim: claimer(ctx.queue) };
  }

  it('runs a tag-barrier job once its only holder no longer carries the tags', async () => {
    const { holder, claim } = await barrier({ runAt: LATER });
    expect(await claim()).toEqual([]);
    await ctx.queue.editJob(holder, { tags: ['other'] });
    expect(await claim()).toEqual(['drain']);
  });

  it('runs a tag-barrier job once its holder failed and waits for a retry (not active)', async () => {
    const { holder, claim } = await barrier({ runAt: EARLIER });
    expect(await claim()).toEqual(['holder']);
    await failOne(backendOf(ctx.queue), {
      jobId: holder,
      workerId: 'w',
      message: 'no',
      reason: 'handler_error',
      retryAt: LATER,
      now: NOW,
    });
    expect(await claim()).toEqual(['drain']);
  });

  it('keeps a tag-barrier job held while its holder waits, and runs it when the holder completes', async () => {
    const { holder, claim } = await barrier({ runAt: EARLIER });
    expect(await claim()).toEqual(['holder']);
    const resume = new Date(NOW.getTime() + 1_000);
    await backendOf(ctx.queue).enterWait({ jobId: holder, workerId: 'w', waitUntil: resume, tokenId: null, now: NOW });
    expect(await claim()).toEqual([]);
    const after = new Date(resume.getTime() + 1);
    expect(await claim(10, after)).toEqual(['holder']);
    await backendOf(ctx.queue).completeJobs([{ jobId: holder, workerId: 'w' }], after);
    expect(await claim(10, after)).toEqual(['drain']);
  });
});
