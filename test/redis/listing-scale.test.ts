/**
 * Listings that no single-value index answers stay bounded as the store grows: tags in `any`
 * mode merge the per-tag ranges of the tag index newest first, and a `runAt` range reads the
 * `run-at` index. The commands a first page costs (INFO commandstats counts those run inside
 * scripts too, on a private redis-server) are the same with 1,000 and with 20,000 other jobs
 * stored, and the pages equal a filter applied to every job.
 */
import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { redisKeys } from '../../src/backends/redis/keys.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { JobFilter, JobRecord } from '../../src/types.js';
import { commandCalls, usePrivateRedis } from './counters.js';

const HOUR = 3_600_000;
const SMALL = 1_000;
const LARGE = 20_000;
/** The start of the hour the target jobs run in; the other jobs run days later. */
const WINDOW = Date.UTC(2031, 0, 1);

async function commandsOf<T>(client: Redis, run: () => Promise<T>): Promise<{ result: T; commands: number }> {
  const before = await commandCalls(client);
  const result = await run();
  return { result, commands: (await commandCalls(client)) - before };
}

/** The ids of `jobs` matching `keep`, newest first, as a listing orders them. */
function expected(jobs: JobRecord[], keep: (job: JobRecord) => boolean): number[] {
  return jobs
    .filter(keep)
    .map((j) => j.id)
    .sort((a, b) => b - a);
}

describe('redis listings at scale', () => {
  const server = usePrivateRedis();
  let client: Redis;
  beforeAll(() => {
    client = server.client;
  });
  let n = 0;

  /**
   * A queue under a fresh prefix: first 12 target jobs (tagged `a`, `b` or both, run in the
   * hour at WINDOW), then `others` jobs with other tags, run days later.
   */
  async function store(others: number): Promise<JobQueue> {
    n += 1;
    const q = initJobQueue({ backend: 'redis', client, keyPrefix: `scale${String(n)}:` });
    await q.addJobs(
      Array.from({ length: 12 }, (_, i) => ({
        jobType: 'target',
        payload: { i },
        tags: i % 3 === 0 ? ['a', 'b'] : i % 3 === 1 ? ['a'] : ['b', 'c'],
        runAt: new Date(WINDOW + i * 60_000),
      })),
    );
    for (let start = 0; start < others; start += 1000) {
      await q.addJobs(
        Array.from({ length: Math.min(1000, others - start) }, (_, i) => ({
          jobType: 'other',
          payload: { i: start + i },
          tags: [`t${String((start + i) % 7)}`],
          runAt: new Date(WINDOW + 48 * HOUR + (start + i) * 1000),
        })),
      );
    }
    return q;
  }

  const anyTags: JobFilter = { tags: { values: ['a', 'b'], mode: 'any' } };
  const window: JobFilter = { runAt: { gte: new Date(WINDOW), lt: new Date(WINDOW + HOUR) } };

  it('answers tags in any mode and a runAt range with as many commands at 20,000 jobs as at 1,000', async () => {
    const small = await store(SMALL);
    const large = await store(LARGE);
    for (const filter of [anyTags, window]) {
      const a = await commandsOf(client, () => small.getJobs(filter, 50));
      const b = await commandsOf(client, () => large.getJobs(filter, 50));
      expect(b.commands).toBe(a.commands);
      expect(b.result.map((j) => (j.payload as { i: number }).i)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    }
    const byTags = await commandsOf(client, () => small.getJobsByTags(['a', 'b'], 'any'));
    const byTagsLarge = await commandsOf(client, () => large.getJobsByTags(['a', 'b'], 'any'));
    expect(byTagsLarge.commands).toBe(byTags.commands);
    expect(byTagsLarge.result).toHaveLength(12);
  }, 60_000);

  it('pages tags in any mode, runAt ranges and their mixes with other filters like a filter over every job', async () => {
    const q = await store(3_000);
    const all = await q.getJobs();
    const has = (j: JobRecord, t: string) => j.tags.includes(t);
    const cases: [JobFilter, (j: JobRecord) => boolean][] = [
      [{ tags: { values: ['t1', 't2', 'a'], mode: 'any' } }, (j) => has(j, 't1') || has(j, 't2') || has(j, 'a')],
      [{ tags: { values: ['c', 't3'], mode: 'any' }, jobType: 'other' }, (j) => j.jobType === 'other' && has(j, 't3')],
      [window, (j) => j.runAt.getTime() >= WINDOW && j.runAt.getTime() < WINDOW + HOUR],
      // Wider than one slice reads whole: checked by the index score while walking.
      [
        { runAt: { gt: new Date(WINDOW + 48 * HOUR + 500_000) } },
        (j) => j.runAt.getTime() > WINDOW + 48 * HOUR + 500_000,
      ],
      [
        { runAt: { lte: new Date(WINDOW + 48 * HOUR + 2_500_000) }, jobType: 'other' },
        (j) => j.jobType === 'other' && j.runAt.getTime() <= WINDOW + 48 * HOUR + 2_500_000,
      ],
      [{ runAt: new Date(WINDOW + 5 * 60_000) }, (j) => j.runAt.getTime() === WINDOW + 5 * 60_000],
    ];
    for (const [filter, keep] of cases) {
      const want = expected(all, keep);
      expect(want.length).toBeGreaterThan(0);
      for (const [limit, offset] of [
        [50, 0],
        [20, 7],
        [30, 1_500],
      ] as const) {
        const page = await q.getJobs(filter, limit, offset);
        expect(page.map((j) => j.id)).toEqual(want.slice(offset, offset + limit));
      }
    }
  }, 60_000);

  it('lists by runAt correctly in a store written before the run-at index', async () => {
    const q = await store(SMALL);
    const before = await q.getJobs(window);
    await client.del(redisKeys(`scale${String(n)}:`).runAt);
    const after = await commandsOf(client, () => q.getJobs(window));
    expect(after.result.map((j) => j.id)).toEqual(before.map((j) => j.id));
    expect(after.result).toHaveLength(12);
    // Without the index, the listing walks the jobs: it decodes each of them.
    expect(after.commands).toBeGreaterThan(SMALL);
  }, 60_000);
});
