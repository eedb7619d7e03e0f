/**
 * Index consistency: after every kind of change, each index of keys.ts agrees with the job
 * metadata (status sets, type/tag/dependency indexes, ready/scheduled/processing/finished
 * placement, group counters, idempotency keys, event indexes).
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { pad, redisKeys } from '../../src/backends/redis/keys.js';
import type { StoredJob } from '../../src/backends/redis/record.js';
import { JOB_STATUSES } from '../../src/types.js';
import { useRedis } from './support.js';

const WORKER = 'w1';
const sorted = (values: string[]) => [...values].sort();
const arr = <T>(v: T[] | Record<string, never> | null | undefined): T[] => (Array.isArray(v) ? v : []);

async function expectConsistent(redis: Redis, prefix: string): Promise<void> {
  const k = redisKeys(prefix);
  const raw = await redis.hgetall(k.jobs);
  const jobs = Object.values(raw).map((t) => JSON.parse(t) as StoredJob);
  const ids = jobs.map((j) => String(j.id));

  expect(sorted(await redis.zrange(k.all, 0, -1)), 'all').toEqual(sorted(ids));
  expect(sorted(await redis.hkeys(k.payloads)), 'payloads').toEqual(sorted(ids));
  for (const status of JOB_STATUSES) {
    const expected = jobs.filter((j) => j.status === status).map((j) => String(j.id));
    expect(sorted(await redis.zrange(k.status[status], 0, -1)), `status:${status}`).toEqual(sorted(expected));
  }
  expect(sorted(await redis.zrange(k.types, 0, -1)), 'types').toEqual(sorted(jobs.map((j) => `${j.jobType}\0${pad(j.id)}`)));
  expect(sorted(await redis.zrange(k.tags, 0, -1)), 'tags').toEqual(
    sorted(jobs.flatMap((j) => arr(j.tags).map((t) => `${t}\0${pad(j.id)}`))),
  );
  expect(sorted(await redis.zrange(k.tagDeps, 0, -1)), 'tag-deps').toEqual(
    sorted(jobs.flatMap((j) => arr(j.dependsOnTags).map((t) => `${t}\0${pad(j.id)}`))),
  );
  const present = new Set(jobs.map((j) => j.id));
  expect(sorted(await redis.zrange(k.deps, 0, -1)), 'deps').toEqual(
    sorted(jobs.flatMap((j) => arr(j.dependsOnJobIds).filter((d) => present.has(d)).map((d) => `${pad(d)}\0${pad(j.id)}`))),
  );

  const placed = new Map<string, string[]>();
  for (const name of ['ready', 'scheduled', 'processing', 'finished'] as const) {
    for (const m of await redis.zrange(k[name], 0, -1)) placed.set(m, [...(placed.get(m) ?? []), name]);
  }
  for (const j of jobs) {
    const where = placed.get(pad(j.id)) ?? [];
    const finished = j.status === 'completed' || j.status === 'cancelled' || (j.status === 'failed' && j.nextAttemptAt == null);
    if (j.status === 'processing') {
      expect(where, `job ${j.id}`).toEqual(['processing']);
      expect(Number(await redis.zscore(k.processing, pad(j.id)))).toBe(j.lockedAt);
    } else if (finished) {
      expect(where, `job ${j.id}`).toEqual(['finished']);
      expect(Number(await redis.zscore(k.finished, pad(j.id)))).toBe(j.updatedAt);
    } else if (j.status === 'waiting' && j.waitUntil == null) {
      expect(where, `job ${j.id}`).toEqual([]);
    } else {
      expect(where.length === 1 && ['ready', 'scheduled'].includes(where[0]!), `job ${j.id} in ${where}`).toBe(true);
    }
    placed.delete(pad(j.id));
  }
  expect([...placed.keys()], 'placement entries without a job').toEqual([]);

  // ready-by-type mirrors ready, with the type and current priority in the member.
  const readyIds = new Set((await redis.zrange(k.ready, 0, -1)).map(Number));
  const typed = (j: StoredJob) => `${j.jobType}\0${String(2147483647 - j.priority).padStart(10, '0')}\0${pad(j.id)}`;
  expect(sorted(await redis.zrange(k.readyByType, 0, -1)), 'ready-by-type').toEqual(
    sorted(jobs.filter((j) => readyIds.has(j.id)).map(typed)),
  );
  const hints: Record<string, string> = {};
  for (const j of jobs) hints[String(j.id)] = `${j.jobType}\0${j.groupId ?? ''}`;
  expect(await redis.hgetall(k.claimHints), 'claim-hints').toEqual(hints);

  const groups: Record<string, string> = {};
  for (const j of jobs) {
    if (j.status === 'processing' && j.groupId) groups[j.groupId] = String(Number(groups[j.groupId] ?? 0) + 1);
  }
  expect(await redis.hgetall(k.groups), 'groups').toEqual(groups);

  const idem: Record<string, string> = {};
  for (const j of jobs) if (j.idempotencyKey) idem[j.idempotencyKey] = String(j.id);
  expect(await redis.hgetall(k.idem), 'idem').toEqual(idem);

  const events = await redis.hgetall(k.events);
  const eventIds = Object.keys(events);
  expect(sorted(await redis.zrange(k.eventTimes, 0, -1)), 'event-times').toEqual(sorted(eventIds));
  expect(sorted(await redis.zrange(k.jobEvents, 0, -1)), 'job-events').toEqual(
    sorted(eventIds.map((id) => `${pad((JSON.parse(events[id]!) as { jobId: number }).jobId)}\0${pad(Number(id))}`)),
  );
}

describe('redis indexes', () => {
  const ctx = useRedis();

  it('stay consistent through adds, claims, failures, cascades, edits, retries, reclaims and cleanups', async () => {
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

    const claimed = await q.backend.claimJobs({ workerId: WORKER, batchSize: 10, groupConcurrency: 1, now: now() });
    expect(claimed.map((j) => j.id).sort()).toEqual([root, grouped].sort());
    await check();

    await q.editJob(later!, { runAt: new Date(Date.UTC(2029, 0, 1)), tags: ['q'], priority: 9 });
    await check();

    // root fails for good: dead letter, cascade to child, grandchild and the tag-barrier job.
    const failed = await q.backend.failJob({ jobId: root!, workerId: WORKER, message: 'x', reason: 'handler_error', retryAt: null, now: now() });
    expect(failed?.cascaded.map((c) => c.jobId).sort()).toEqual([child, barrier, grandchild].sort());
    await check();

    // grouped: a retry is scheduled, then claimed again and reclaimed when stuck.
    await q.backend.failJob({ jobId: grouped!, workerId: WORKER, message: 'x', reason: 'handler_error', retryAt: new Date(now().getTime() + 1000), now: now() });
    await check();
    clock.advance(2000);
    const again = await q.backend.claimJobs({ workerId: WORKER, batchSize: 10, jobTypes: ['e'], groupConcurrency: 1, now: now() });
    expect(again.map((j) => j.id)).toEqual([grouped]);
    await check();
    clock.advance(20 * 60_000);
    expect(await q.reclaimStuckJobs(10)).toBe(1);
    await check();

    await q.retryJob(child!);
    await q.cancelAllUpcomingJobs({ jobType: 'f' });
    await check();

    clock.advance(31 * 86_400_000);
    expect(await q.cleanupOldJobs(30, 2)).toBeGreaterThan(0);
    await check();
    await q.cleanupOldJobEvents(1, 3);
    await check();
  });
});
