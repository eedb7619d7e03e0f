/**
 * Parked jobs (migration 006): a claim parks the due jobs it finds blocked, and the statement
 * that ends the blocker puts them back, whichever statement it is: a completion, a failure, a
 * cancel, an edit of a barrier holder's tags, a wait, a reclaim. Exercised through the backend
 * with explicit claims, so each step shows where every job is.
 */
import { describe, expect, it } from 'vitest';
import type { JobQueue } from '../../src/index.js';
import { backendOf } from '../../src/queue.js';
import { usePostgres } from './support.js';

describe('parked jobs (postgres)', () => {
  const ctx = usePostgres();
  const NOW = new Date('2030-01-01T00:00:00.000Z');
  const earlier = new Date(NOW.getTime() - 60_000);

  async function parked(): Promise<Record<string, string>> {
    const { rows } = await ctx.sql.query<{ job_type: string; parked_reason: string }>(
      `SELECT job_type, parked_reason FROM "${ctx.schema}".job_queue WHERE parked ORDER BY id`,
    );
    return Object.fromEntries(rows.map((r) => [r.job_type, r.parked_reason]));
  }

  /** Parked jobs in insertion order: [job type, priority]. */
  async function parkedRows(): Promise<[string, number][]> {
    const { rows } = await ctx.sql.query<{ job_type: string; priority: number }>(
      `SELECT job_type, priority FROM "${ctx.schema}".job_queue WHERE parked ORDER BY id`,
    );
    return rows.map((r) => [r.job_type, r.priority]);
  }

  function claimer(queue: JobQueue, groupConcurrency?: number) {
    const backend = backendOf(queue);
    return async (batchSize = 10) =>
      (
        await backend.claimJobs({
          workerId: 'w',
          batchSize,
          now: NOW,
          ...(groupConcurrency === undefined ? {} : { groupConcurrency }),
        })
      ).map((j) => j.jobType);
  }

  it('puts a tag-barrier job back when the last holder ends, not before', async () => {
    const queue = ctx.queue();
    const backend = backendOf(queue);
    const claim = claimer(queue);
    const h1 = await queue.addJob({ jobType: 'h1', payload: {}, tags: ['t'], priority: 9, runAt: earlier });
    const h2 = await queue.addJob({ jobType: 'h2', payload: {}, tags: ['t', 'u'], priority: 8, runAt: earlier });
    const drain = await queue.addJob({
      jobType: 'drain',
      payload: {},
      dependsOn: { tags: ['t'] },
      priority: 5,
      runAt: earlier,
    });
    expect(await claim(1)).toEqual(['h1']);
    expect(await claim()).toEqual(['h2']);
    expect(await parked()).toEqual({ drain: 'tag_barrier' });
    await backend.completeJobs([{ jobId: h1, workerId: 'w' }], NOW);
    expect(await parked()).toEqual({ drain: 'tag_barrier' });
    expect(await claim()).toEqual([]);
    await backend.completeJobs([{ jobId: h2, workerId: 'w' }], NOW);
    expect(await parked()).toEqual({});
    expect(await claim()).toEqual(['drain']);
    expect((await queue.getJob(drain))?.status).toBe('processing');
  });

  it('puts back, per slot that frees, the best parked job of each job type of a full group', async () => {
    const queue = ctx.queue();
    const backend = backendOf(queue);
    const claim = claimer(queue, 1);
    const group = { id: 'g' };
    const first = await queue.addJob({ jobType: 'first', payload: {}, group, priority: 9, runAt: earlier });
    await queue.addJob({ jobType: 'low', payload: {}, group, priority: 1, runAt: earlier });
    await queue.addJob({ jobType: 'high', payload: {}, group, priority: 5, runAt: earlier });
    await queue.addJob({ jobType: 'low', payload: { n: 2 }, group, priority: 0, runAt: earlier });
    await queue.addJob({ jobType: 'free', payload: {}, priority: 0, runAt: earlier });
    expect(await claim(1)).toEqual(['first']);
    expect(await claim()).toEqual(['free']);
    expect(await parkedRows()).toEqual([
      ['low', 1],
      ['high', 5],
      ['low', 0],
    ]);
    await backend.completeJobs([{ jobId: first, workerId: 'w' }], NOW);
    expect(await parkedRows()).toEqual([['low', 0]]);
    // The claim takes `high` and leaves `low` 1 for the group's limit, so it looks again: the
    // group is full by then, and `low` 1 is parked in the same call.
    expect(await claim()).toEqual(['high']);
    expect(await parkedRows()).toEqual([
      ['low', 1],
      ['low', 0],
    ]);
    expect(await claim()).toEqual([]);
  });

  it('puts a dependent back when its prerequisite completes, and a retried job is never parked', async () => {
    const queue = ctx.queue();
    const backend = backendOf(queue);
    const claim = claimer(queue);
    const prerequisite = await queue.addJob({ jobType: 'prerequisite', payload: {}, runAt: earlier });
    const dependent = await queue.addJob({
      jobType: 'dependent',
      payload: {},
      dependsOn: { jobIds: [prerequisite] },
      priority: 5,
      runAt: earlier,
    });
    expect(await claim(1)).toEqual(['prerequisite']);
    expect(await claim()).toEqual([]);
    expect(await parked()).toEqual({ dependent: 'prerequisites' });
    await queue.cancelJob(dependent);
    await queue.retryJob(dependent);
    expect(await parked()).toEqual({});
    expect(await claim()).toEqual([]);
    expect(await parked()).toEqual({ dependent: 'prerequisites' });
    await backend.completeJobs([{ jobId: prerequisite, workerId: 'w' }], NOW);
    expect(await claim()).toEqual(['dependent']);
  });
});
