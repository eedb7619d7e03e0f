/**
 * Index consistency: after every kind of change, each index of keys.ts agrees with the job
 * metadata (status sets, type/tag/dependency indexes, ready/scheduled/processing/finished
 * placement, group counters, idempotency keys, event indexes).
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { backendOf } from '../../src/queue.js';
import { expectConsistent } from './consistency.js';
import { useRedis } from './support.js';
import { failOne } from '../helpers/fail.js';

const WORKER = 'w1';

describe('redis indexes', () => {
  const ctx = useRedis();

  it('stay consistent through adds, claims, failures, cascades, edits, retries, bulk retries, deletes, reclaims and cleanups', async () => {
    const clock = new ManualClock(Date.UTC(2030, 0, 1));
    const q = ctx.queue({ clock });
    const check = () => expectConsistent(ctx.redis, ctx.prefix);
    const now = () => clock.now();

    const [root, child, barrier, grandchild, grouped, later] = await q.addJobs([
      { jobType: 'a', payload: 1, tags: ['x', 'y'], maxAttempts: 1, deadLetterJobType: 'dead', idempotencyKey: 'root' },
      { jobType: 'b', payload: 2, dependsOn: { jobIds: [-1] } },
      { jobType: 'c', payload: 3, dependsOn: { tags: ['x'] }, tags: ['z'] },
      { jobType: 'd', payload: 4, dependsOn: { jobIds: [-2] } },
      { jobType: 'e', payload: 5, group: { id: 'g' }, maxAttempts: 2 },
      { jobType: 'f', payload: 6, runAt: new Date(Date.UTC(2030, 0, 2)), tags: ['y'] },
    ]);
    await check();

    const claimed = await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 10, groupConcurrency: 1, now: now() });
    expect(claimed.map((j) => j.id).sort()).toEqual([root, grouped].sort());
    await check();

    await q.editJob(later!, { runAt: new Date(Date.UTC(2029, 0, 1)), tags: ['q'], priority: 9 });
    await check();

    // root fails for good: dead letter, cascade to child, grandchild and the tag-barrier job.
    const failed = await failOne(backendOf(q), {
      jobId: root!,
      workerId: WORKER,
      message: 'x',
      reason: 'handler_error',
      retryAt: null,
      now: now(),
    });
    expect(failed?.cascaded.map((c) => c.jobId).sort()).toEqual([child, barrier, grandchild].sort());
    await check();

    // grouped: a retry is scheduled, then claimed again and reclaimed when stuck.
    await failOne(backendOf(q), {
      jobId: grouped!,
      workerId: WORKER,
      message: 'x',
      reason: 'handler_error',
      retryAt: new Date(now().getTime() + 1000),
      now: now(),
    });
    await check();
    clock.advance(2000);
    const again = await backendOf(q).claimJobs({
      workerId: WORKER,
      batchSize: 10,
      jobTypes: ['e'],
      groupConcurrency: 1,
      now: now(),
    });
    expect(again.map((j) => j.id)).toEqual([grouped]);
    await check();
    clock.advance(20 * 60_000);
    expect(await q.reclaimStuckJobs(10)).toBe(1);
    await check();

    await q.retryJob(child!);
    await q.cancelAllUpcomingJobs({ jobType: 'f' });
    await check();

    // A cancelled job scheduled for later is retried due now: its runAt (and run-at entry) moves.
    const [future] = await q.addJobs([{ jobType: 'g', payload: 7, runAt: new Date(Date.UTC(2031, 0, 1)) }]);
    await q.cancelJob(future!);
    await q.retryJob(future!);
    expect((await q.getJob(future!))?.runAt.getTime()).toBe(now().getTime());
    await check();

    // Bulk retry of the failed jobs (root, and grouped after its reclaim) and deleting a finished job.
    expect(await q.retryAllFailedJobs()).toBe(2);
    await check();
    const [done] = await q.addJobs([{ jobType: 'h', payload: 8, tags: ['t'], idempotencyKey: 'done' }]);
    await q.cancelJob(done!);
    await q.deleteJob(done!);
    await check();

    clock.advance(31 * 86_400_000);
    expect(await q.cleanupOldJobs(30, 2)).toBeGreaterThan(0);
    await check();
    await q.cleanupOldJobEvents(1, 3);
    await check();
  });
});
