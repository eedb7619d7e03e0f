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
import { commandCalls, usePrivateRedis } from './counters.js';
import { storeOf } from './support.js';
import { failOne } from '../helpers/fail.js';

const WORKER = 'w1';
const BATCH = 100;

/** Calls per command name so far (lower case, as INFO names them). */
async function callsByCommand(client: Redis): Promise<Map<string, number>> {
  const info = await client.info('commandstats');
  return new Map([...info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
}

async function commandsOf(client: Redis, run: () => Promise<unknown>): Promise<number> {
  const before = await commandCalls(client);
  await run();
  return (await commandCalls(client)) - before;
}

/** Bytes the server received from clients so far, the probe (INFO stats) included. */
async function bytesReceived(client: Redis): Promise<number> {
  const info = await client.info('stats');
  return Number(/^total_net_input_bytes:(\d+)/m.exec(info)![1]);
}

async function usedMemory(client: Redis): Promise<number> {
  const info = await client.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)![1]);
}

describe('redis cost per job', () => {
  const server = usePrivateRedis();
  let client: Redis;
  let q: JobQueue;

  beforeAll(async () => {
    client = server.client;
    q = initJobQueue({ backend: 'redis', client, keyPrefix: 'cost' });
    await q.addJob({ jobType: 'warm-up', payload: {} }); // the store identity and the scripts
  }, 30_000);

  afterAll(async () => {
    await q.close();
  });

  it('adds a job of a batch with at most 2 commands, and a single job with at most 13 (the script call included)', async () => {
    const jobs = Array.from({ length: BATCH }, (_, i) => ({ jobType: 'email', payload: { i } }));
    const batch = await commandsOf(client, () => q.addJobs(jobs));
    const single = await commandsOf(client, () => q.addJob({ jobType: 'email', payload: { i: 0 } }));
    expect(batch / BATCH).toBeLessThanOrEqual(2);
    // A plain job keeps its `added` event in its metadata: one INCR for its id instead of the
    // event's INCR, HSET and two ZADDs (17 commands before); its wake-up is one PUBLISH.
    expect(single).toBeLessThanOrEqual(13);
  });

  it('wakes processors with one PUBLISH per add, stored nowhere', async () => {
    const wakeKey = 'cost{q}:wake';
    const before = await callsByCommand(client);
    const single = await commandsOf(client, () => q.addJob({ jobType: 'email', payload: { i: 0 } }));
    await q.addJobs([
      { jobType: 'email', payload: { i: 1 } },
      { jobType: 'email', payload: { i: 2 } },
    ]);
    const after = await callsByCommand(client);
    const delta = (command: string) => (after.get(command) ?? 0) - (before.get(command) ?? 0);
    expect(single).toBeLessThanOrEqual(13);
    expect(delta('publish')).toBe(2);
    expect(delta('lpush') + delta('ltrim')).toBe(0);
    expect(await client.exists(wakeKey)).toBe(0);
  });

  it('sends a single job without options in at most 850 bytes: only the keys its script touches', async () => {
    const probe = -((await bytesReceived(client)) - (await bytesReceived(client)));
    const before = await bytesReceived(client);
    await q.addJob({ jobType: 'email', payload: { i: 0 } });
    const sent = (await bytesReceived(client)) - before - probe;
    // The script call (FCALL) with 16 keys, the stored metadata, payload and `added` texts and the store id
    // (31 keys and the job as JSON to decode before: 1,148 bytes).
    expect(sent).toBeLessThanOrEqual(850);
  });

  it('writes no claim hint, with or without a group', async () => {
    await client.del('cost{q}:claim-hints');
    const ids = [
      ...(await q.addJobs([{ jobType: 'email', payload: {} }])),
      await q.addJob({ jobType: 'email', payload: {} }),
      await q.addJob({ jobType: 'email', payload: {}, group: { id: 'g1' } }),
    ];
    expect(ids).toHaveLength(3);
    expect(await client.exists('cost{q}:claim-hints')).toBe(0);
  });

  it('claims a job of a batch with at most 2.2 commands and completes it with at most 2.2', async () => {
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
    // A claim removes its batch from `ready` and `ready-by-type` with one command each; a
    // completion in a store without dependents or step data reads neither per job, and adds its
    // batch to `status:completed` with one command. Both keep their events in the jobs'
    // metadata, with one INCRBY for the batch's event ids (2.5 and 3.4 commands per job when
    // each wrote its events; a completion 3.1 when it added each job to `status:completed`
    // alone).
    expect(claim / 10).toBeLessThanOrEqual(2.2);
    expect(complete / 10).toBeLessThanOrEqual(2.2);
  });

  it('records a failed attempt, with a retry to come or for good, with at most 15 commands (the script call included)', async () => {
    await client.del(...(await client.keys('cost{q}:*')));
    await q.addJobs([
      { jobType: 'flaky', payload: {}, maxAttempts: 2 },
      { jobType: 'flaky', payload: {}, maxAttempts: 1 },
    ]);
    const store = storeOf(q);
    const [retried, ended] = (await store.claimJobs({ workerId: WORKER, batchSize: 2, now: new Date() })).map(
      (j) => j.id,
    );
    const fail = (jobId: number, retryAt: Date | null) =>
      failOne(store, { jobId, workerId: WORKER, message: 'm', reason: 'handler_error', retryAt, now: new Date() });
    const retry = await commandsOf(client, () => fail(retried!, new Date(Date.now() + 60_000)));
    const final = await commandsOf(client, () => fail(ended!, null));
    // The job is known to be processing, so its failure takes it out of `processing` alone, as
    // a completion does (23 commands each when it cleared every place a job can be in); its two
    // events, the failure's and the `processing` one written out of the job's metadata, go out
    // with one command per key (18 commands each when each event wrote its own).
    expect(retry).toBeLessThanOrEqual(15);
    expect(final).toBeLessThanOrEqual(15);
  });

  it('records the failures of a batch with at most 8 commands each (the script call included)', async () => {
    await client.del(...(await client.keys('cost{q}:*')));
    await q.addJobs(
      Array.from({ length: 10 }, (_, i) => ({ jobType: 'flaky', payload: { i }, maxAttempts: 1 + (i % 2) })),
    );
    const store = storeOf(q);
    const ids = (await store.claimJobs({ workerId: WORKER, batchSize: 10, now: new Date() })).map((j) => j.id);
    expect(ids).toHaveLength(10);
    const retryAt = new Date(Date.now() + 60_000);
    const failures = ids.map((jobId, i) => ({
      jobId,
      workerId: WORKER,
      message: 'm',
      reason: 'handler_error' as const,
      retryAt: i % 2 === 1 ? retryAt : null,
    }));
    let results: unknown[] = [];
    const commands = await commandsOf(client, async () => {
      results = await store.failJobs(failures, new Date());
    });
    expect(results.every((r) => r !== null)).toBe(true);
    // One call for the batch: the store check, the throughput counter, the wake-up and each
    // event key's write once, not once per failure (7.9 per failure measured; 14.5 when each
    // failure wrote its events itself; 15 for a failure recorded alone, above).
    expect(commands / 10).toBeLessThanOrEqual(8);
  });

  it('stores a pending job in at most 1,200 bytes', async () => {
    const count = 10_000;
    const before = await usedMemory(client);
    for (let start = 0; start < count; start += 1000) {
      await q.addJobs(Array.from({ length: 1000 }, (_, i) => ({ jobType: 'email', payload: { i: start + i } })));
    }
    const perJob = ((await usedMemory(client)) - before) / count;
    // Its `added` event kept in its metadata: no event text, no entries in job-events and
    // event-times (about 1,510 bytes per job before).
    expect(perJob).toBeLessThanOrEqual(1200);
  }, 60_000);

  it('keeps a completed job, with its history, in at most 1,200 bytes', async () => {
    await client.del(...(await client.keys('cost{q}:*')));
    const count = 10_000;
    const before = await usedMemory(client);
    for (let start = 0; start < count; start += 1000) {
      await q.addJobs(Array.from({ length: 1000 }, (_, i) => ({ jobType: 'email', payload: { i: start + i } })));
    }
    const store = storeOf(q);
    for (;;) {
      const ids = (await store.claimJobs({ workerId: WORKER, batchSize: 500, now: new Date() })).map((j) => j.id);
      if (ids.length === 0) break;
      await store.completeJobs(
        ids.map((jobId) => ({ jobId, workerId: WORKER })),
        new Date(),
      );
    }
    expect(await q.countJobs({ status: 'completed' })).toBe(count);
    const perJob = ((await usedMemory(client)) - before) / count;
    // Its `processing` and `completed` events kept in its metadata beside the `added` one
    // (about 1,790 bytes per job when each was an event of its own).
    expect(perJob).toBeLessThanOrEqual(1200);
  }, 60_000);
});
