/**
 * A keyset page (queryJobsPage's `after`) deep in a store of 20,000 jobs starts its walk at the
 * cursor in the listing's sorted set: it runs about the commands of the first page (INFO
 * commandstats counts those run inside scripts too, on a private redis-server), for a filter an
 * index answers and for one the walk checks job by job. The same page by offset, for a filter
 * checked job by job, walks and decodes every job before it.
 */
import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { JobQueryFilter } from '../../src/types.js';
import { commandCalls, usePrivateRedis } from './counters.js';

const JOBS = 20_000;
const PAGE = 50;
/** How many matching jobs the deep page leaves below it. */
const LEFT_BELOW = 2 * PAGE;

async function commandsOf<T>(client: Redis, run: () => Promise<T>): Promise<{ result: T; commands: number }> {
  const before = await commandCalls(client);
  const result = await run();
  return { result, commands: (await commandCalls(client)) - before };
}

const listings: Record<string, JobQueryFilter> = {
  'no filter': {},
  jobType: { jobType: 'report' },
  'tags any': { tags: { values: ['tenant:3', 'tenant:4'], mode: 'any' } },
  // No index answers a priority: the walk decodes each job it passes.
  priority: { priority: 3 },
  'jobType and priority': { jobType: 'sync', priority: 1 },
};

describe('redis keyset pages', () => {
  const server = usePrivateRedis();
  let queue: JobQueue;

  beforeAll(async () => {
    queue = initJobQueue({ backend: 'redis', client: server.client, keyPrefix: 'keyset:' });
    for (let start = 0; start < JOBS; start += 1000) {
      await queue.addJobs(
        Array.from({ length: 1000 }, (_, k) => {
          const g = start + k;
          return {
            jobType: ['email', 'report', 'sync', 'webhook'][g % 4]!,
            payload: { g },
            priority: g % 5,
            tags: [`tenant:${String(g % 50)}`],
          };
        }),
      );
    }
  }, 120_000);

  it('reads a deep page by cursor with about the commands of the first page', async () => {
    for (const [name, filter] of Object.entries(listings)) {
      const all = (await queue.queryJobs(filter)).map((j) => j.id);
      const at = all.length - LEFT_BELOW - PAGE - 1;
      const first = await commandsOf(server.client, () => queue.queryJobsPage(filter, { limit: PAGE }));
      const deep = await commandsOf(server.client, () => queue.queryJobsPage(filter, { limit: PAGE, after: all[at]! }));
      const byOffset = await commandsOf(server.client, () => queue.queryJobs(filter, PAGE + 1, at + 1));
      expect(
        deep.result.jobs.map((j) => j.id),
        name,
      ).toEqual(all.slice(at + 1, at + 1 + PAGE));
      expect(
        byOffset.result.slice(0, PAGE).map((j) => j.id),
        name,
      ).toEqual(all.slice(at + 1, at + 1 + PAGE));
      expect(deep.commands, `${name}: commands of the deep page`).toBeLessThanOrEqual(first.commands + 10);
      if (name === 'priority' || name === 'jobType and priority') {
        expect(byOffset.commands, `${name}: commands of the page by offset`).toBeGreaterThan(10 * deep.commands);
      }
    }
  }, 120_000);
});
