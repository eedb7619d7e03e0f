/**
 * Claims and completions gather the writes to keys they do not read back and send them at the
 * end of the script (includes/writes.lua): the metadata and status sets of claimed jobs, and
 * of completed jobs except `status:completed`, which the release of dependents reads. These
 * tests check what could go wrong with writes held back within one script call.
 */
import { describe, expect, it } from 'vitest';
import { backendOf } from '../../src/queue.js';
import { expectConsistent } from './consistency.js';
import { useRedis } from './support.js';

const WORKER = 'w1';

describe('redis deferred writes in claims and completions', () => {
  const ctx = useRedis();

  it('releases a dependent whose prerequisites all complete in one call', async () => {
    const q = ctx.queue();
    const store = backendOf(q);
    const [a, b] = await q.addJobs([
      { jobType: 't', payload: 1 },
      { jobType: 't', payload: 2 },
    ]);
    const c = await q.addJob({ jobType: 't', payload: 3, dependsOn: { jobIds: [a!, b!] } });
    const claimed = await store.claimJobs({ workerId: WORKER, batchSize: 10, now: new Date() });
    expect(claimed.map((j) => j.id).sort()).toEqual([a, b]);
    const recorded = await store.completeJobs(
      [
        { jobId: a!, workerId: WORKER },
        { jobId: b!, workerId: WORKER },
      ],
      new Date(),
    );
    expect(recorded.sort()).toEqual([a, b]);
    const next = await store.claimJobs({ workerId: WORKER, batchSize: 10, now: new Date() });
    expect(next.map((j) => j.id)).toEqual([c]);
    await expectConsistent(ctx.redis, ctx.prefix);
  });

  it('records a completion repeated in one call once, with one event', async () => {
    const q = ctx.queue();
    const store = backendOf(q);
    const id = await q.addJob({ jobType: 't', payload: {} });
    await store.claimJobs({ workerId: WORKER, batchSize: 1, now: new Date() });
    const recorded = await store.completeJobs(
      [
        { jobId: id, workerId: WORKER },
        { jobId: id, workerId: WORKER },
      ],
      new Date(),
    );
    expect(recorded).toEqual([id]);
    const events = await q.getJobEvents(id);
    expect(events.filter((e) => e.eventType === 'completed')).toHaveLength(1);
    expect((await q.getJob(id))?.status).toBe('completed');
    await expectConsistent(ctx.redis, ctx.prefix);
  });

  it('completes a job repeated in one call after a fenced-off entry for another worker', async () => {
    const q = ctx.queue();
    const store = backendOf(q);
    const id = await q.addJob({ jobType: 't', payload: {} });
    await store.claimJobs({ workerId: WORKER, batchSize: 1, now: new Date() });
    const recorded = await store.completeJobs(
      [
        { jobId: id, workerId: 'someone-else' },
        { jobId: id, workerId: WORKER },
      ],
      new Date(),
    );
    expect(recorded).toEqual([id]);
    expect((await q.getJob(id))?.status).toBe('completed');
  });

  it('returns each claimed job with its own payload and leaves the store consistent', async () => {
    const q = ctx.queue();
    const store = backendOf(q);
    const ids = await q.addJobs(Array.from({ length: 25 }, (_, i) => ({ jobType: 't', payload: { i } })));
    const claimed = await store.claimJobs({ workerId: WORKER, batchSize: 25, now: new Date() });
    expect(claimed.map((j) => [j.id, j.payload])).toEqual(ids.map((id, i) => [id, { i }]));
    expect(claimed.every((j) => j.status === 'processing' && j.attempts === 1)).toBe(true);
    await expectConsistent(ctx.redis, ctx.prefix);
    expect((await q.getJobsByStatus('processing')).map((j) => j.id).sort((x, y) => x - y)).toEqual(ids);
    expect(await q.getJobsByStatus('pending')).toEqual([]);
  });
});
