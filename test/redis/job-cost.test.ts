/**
 * What one job costs the Redis server: the commands it executes (INFO commandstats counts those
 * run inside scripts too) to add a job in a batch, to add one alone, to claim and to complete
 * it, and the memory a stored pending job takes. Measured on a private redis-server, so no
 * other client's commands or keys are counted. The bounds are the budget of
 * docs/performance.md; a change that makes a job dearer fails here.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import { startPrivateRedis, type PrivateServer } from '../helpers/private-servers.js';
import { storeOf } from './support.js';

const WORKER = 'w1';
const BATCH = 100;

/** Commands executed by the server so far, except INFO itself (the probe). */
async function commandsSoFar(client: Redis): Promise<number> {
  const info = await client.info('commandstats');
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (m[1] !== 'info') total += Number(m[2]);
  }
  return total;
}

async function commandsOf(client: Redis, run: () => Promise<unknown>): Promise<number> {
  const before = await commandsSoFar(client);
  await run();
  return (await commandsSoFar(client)) - before;
}

async function usedMemory(client: Redis): Promise<number> {
  const info = await client.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)![1]);
}

describe('redis cost per job', () => {
  let server: PrivateServer;
  let client: Redis;
  let q: JobQueue;

  beforeAll(async () => {
    server = await startPrivateRedis();
    client = new Redis({ port: server.port });
    q = initJobQueue({ backend: 'redis', client, keyPrefix: 'cost' });
    await q.addJob({ jobType: 'warm-up', payload: {} }); // the store identity and the scripts
  }, 30_000);

  afterAll(async () => {
    await q.close();
    client.disconnect();
    await server.stop();
  });

  it('adds a job of a batch with at most 2 commands, and a single job with at most 18', async () => {
    const jobs = Array.from({ length: BATCH }, (_, i) => ({ jobType: 'email', payload: { i } }));
    const batch = await commandsOf(client, () => q.addJobs(jobs));
    const single = await commandsOf(client, () => q.addJob({ jobType: 'email', payload: { i: 0 } }));
    expect(batch / BATCH).toBeLessThanOrEqual(2);
    expect(single).toBeLessThanOrEqual(18);
  });

  it('claims a job of a batch with at most 5 commands and completes it with at most 6', async () => {
    await client.del(...(await client.keys('cost{q}:*')));
    await q.addJobs(Array.from({ length: 10 }, (_, i) => ({ jobType: 'email', payload: { i } })));
    const store = storeOf(q);
    let ids: number[] = [];
    const claim = await commandsOf(client, async () => {
      ids = (await store.claimJobs({ workerId: WORKER, batchSize: 10, now: new Date() })).map((j) => j.id);
    });
    expect(ids).toHaveLength(10);
    const complete = await commandsOf(client, () =>
      store.completeJobs(
        ids.map((jobId) => ({ jobId, workerId: WORKER })),
        new Date(),
      ),
    );
    expect(claim / 10).toBeLessThanOrEqual(5);
    expect(complete / 10).toBeLessThanOrEqual(6);
  });

  it('stores a pending job in at most 1,800 bytes', async () => {
    const count = 10_000;
    const before = await usedMemory(client);
    for (let start = 0; start < count; start += 1000) {
      await q.addJobs(Array.from({ length: 1000 }, (_, i) => ({ jobType: 'email', payload: { i: start + i } })));
    }
    const perJob = ((await usedMemory(client)) - before) / count;
    expect(perJob).toBeLessThanOrEqual(1800);
  }, 60_000);
});
