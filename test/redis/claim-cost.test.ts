/**
 * The cost of one Redis claim does not grow with the jobs it does not return: future jobs,
 * jobs blocked by unmet dependencies, waiting jobs, jobs of other types (for a claim limited to
 * some types) and finished jobs. Measured as the commands the server executes for one claim
 * (INFO commandstats counts those run inside scripts too), on a private redis-server so no other
 * client's commands are counted, with 1,000 and with 200,000 such jobs stored. The same for due
 * jobs held back by a tag barrier or a full group: once a claim has set them aside (`parked`),
 * later claims do not walk them.
 */
import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { redisKeys } from '../../src/backends/redis/keys.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { JobOptions } from '../../src/types.js';
import { commandCalls, usePrivateRedis } from './counters.js';
import { storeOf } from './support.js';

const WORKER = 'w1';
const CHUNK = 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

async function addInChunks(q: JobQueue, count: number, make: (i: number) => JobOptions): Promise<void> {
  for (let start = 0; start < count; start += CHUNK) {
    const size = Math.min(CHUNK, count - start);
    await q.addJobs(Array.from({ length: size }, (_, j) => make(start + j)));
  }
}

/** Adds `count` due jobs of `jobType`, claims them and hands each claimed job to `settle`. */
async function addAndSettle(
  q: JobQueue,
  jobType: string,
  count: number,
  settle: (ids: number[]) => Promise<unknown>,
): Promise<void> {
  await addInChunks(q, count, (i) => ({ jobType, payload: { i } }));
  const store = storeOf(q);
  for (;;) {
    const claimed = await store.claimJobs({ workerId: WORKER, batchSize: CHUNK, jobTypes: [jobType], now: new Date() });
    if (claimed.length === 0) return;
    await settle(claimed.map((j) => j.id));
  }
}

/**
 * A store with `perKind` jobs of each kind a claim must not pay for, all of a higher priority
 * than the due `wanted` jobs: future jobs (several priorities, some grouped, some depending on
 * another future job), due `wanted` jobs blocked by an unmet dependency, waiting jobs and
 * finished jobs.
 */
async function buildBacklog(q: JobQueue, perKind: number): Promise<void> {
  const store = storeOf(q);
  const later = new Date(Date.now() + DAY_MS);
  const [prerequisite] = await q.addJobs([{ jobType: 'wanted', payload: {}, runAt: later, priority: 9 }]);
  await addInChunks(q, perKind, (i) => ({
    jobType: 'wanted',
    payload: { i },
    runAt: later,
    priority: 5 + (i % 4),
    ...(i % 3 === 0 ? { group: { id: `g${i % 7}` } } : {}),
    ...(i % 5 === 0 ? { dependsOn: { jobIds: [prerequisite!] } } : {}),
  }));
  await addInChunks(q, perKind, (i) => ({
    jobType: 'wanted',
    payload: { i },
    priority: 10,
    dependsOn: { jobIds: [prerequisite!] },
  }));
  await addAndSettle(q, 'sleeper', perKind, (ids) =>
    Promise.all(
      ids.map((jobId) =>
        store.enterWait({ jobId, workerId: WORKER, waitUntil: later, tokenId: null, now: new Date() }),
      ),
    ),
  );
  await addAndSettle(q, 'done', perKind, (ids) =>
    store.completeJobs(
      ids.map((jobId) => ({ jobId, workerId: WORKER })),
      new Date(),
    ),
  );
}

interface ClaimCost {
  commands: number;
  claimed: number;
}

/** Adds 10 due `wanted` jobs of the lowest priority, claims them in one call and counts its commands. */
async function measureClaim(
  q: JobQueue,
  client: Redis,
  jobTypes?: string[],
  groupConcurrency?: number,
): Promise<ClaimCost> {
  await q.addJobs(Array.from({ length: 10 }, (_, i) => ({ jobType: 'wanted', payload: { i }, priority: 0 })));
  const before = await commandCalls(client);
  const claimed = await storeOf(q).claimJobs({
    workerId: WORKER,
    batchSize: 10,
    jobTypes,
    ...(groupConcurrency === undefined ? {} : { groupConcurrency }),
    now: new Date(),
  });
  const commands = (await commandCalls(client)) - before;
  return { commands, claimed: claimed.length };
}

/** One claim of any type and one limited to `wanted` (with as many due jobs of other types stored). */
async function claimCosts(
  client: Redis,
  prefix: string,
  perKind: number,
): Promise<{ any: ClaimCost; typed: ClaimCost }> {
  const q = initJobQueue({ backend: 'redis', client, keyPrefix: prefix });
  try {
    await buildBacklog(q, perKind);
    const any = await measureClaim(q, client);
    await addInChunks(q, perKind, (i) => ({ jobType: 'other', payload: { i }, priority: 10 }));
    const typed = await measureClaim(q, client, ['wanted']);
    return { any, typed };
  } finally {
    await q.close();
  }
}

describe('redis claim cost', () => {
  const server = usePrivateRedis();
  let client: Redis;
  beforeAll(() => {
    client = server.client;
  });

  it('runs the same number of commands with 1,000 and with 200,000 future, blocked, waiting, other-type and finished jobs', async () => {
    const small = await claimCosts(client, 'cost-small', 200);
    const large = await claimCosts(client, 'cost-large', 40_000);
    expect(small.any.claimed).toBe(10);
    expect(small.typed.claimed).toBe(10);
    expect(large).toEqual(small);
  }, 600_000);

  it('runs the same number of commands with 1,000 and with 200,000 due jobs behind tag barriers and full groups', async () => {
    const small = await blockedClaimCosts(client, 'blocked-small', 1_000);
    const large = await blockedClaimCosts(client, 'blocked-large', 200_000);
    expect(small.any.claimed).toBe(10);
    expect(small.typed.claimed).toBe(10);
    expect(large).toEqual(small);
  }, 900_000);
});

const GROUPS = 7;
const BARRIERS = 5;

/**
 * `count` due `wanted` jobs of a higher priority than the measured ones, none claimable: half
 * behind one of BARRIERS tag barriers (each held by a pending job scheduled a day ahead), half
 * in one of GROUPS groups whose one slot (groupConcurrency 1) a processing job takes.
 */
async function buildBlocked(q: JobQueue, count: number): Promise<void> {
  const store = storeOf(q);
  const later = new Date(Date.now() + DAY_MS);
  await q.addJobs(
    Array.from({ length: BARRIERS }, (_, b) => ({ jobType: 'holder', payload: {}, runAt: later, tags: [`lock:${b}`] })),
  );
  await q.addJobs(
    Array.from({ length: GROUPS }, (_, g) => ({ jobType: 'runner', payload: {}, group: { id: `g${g}` } })),
  );
  const running = await store.claimJobs({ workerId: WORKER, batchSize: GROUPS, groupConcurrency: 1, now: new Date() });
  expect(running).toHaveLength(GROUPS);
  await addInChunks(q, count, (i) => ({
    jobType: 'wanted',
    payload: { i },
    priority: 5 + (i % 4),
    ...(i % 2 === 0 ? { dependsOn: { tags: [`lock:${i % BARRIERS}`] } } : { group: { id: `g${i % GROUPS}` } }),
  }));
}

/**
 * The first claim behind the blocked jobs: it sets them all aside (in calls of a bounded size),
 * claims nothing, and leaves nothing in `ready`.
 */
async function setAsideBlocked(q: JobQueue, client: Redis, prefix: string): Promise<void> {
  const claimed = await storeOf(q).claimJobs({ workerId: WORKER, batchSize: 10, groupConcurrency: 1, now: new Date() });
  expect(claimed).toEqual([]);
  expect(await client.zcard(redisKeys(prefix).ready)).toBe(0);
}

/** One claim of 10 of any type and one limited to `wanted`, behind `count` blocked jobs. */
async function blockedClaimCosts(
  client: Redis,
  prefix: string,
  count: number,
): Promise<{ any: ClaimCost; typed: ClaimCost }> {
  const q = initJobQueue({ backend: 'redis', client, keyPrefix: prefix });
  try {
    await buildBlocked(q, count);
    await setAsideBlocked(q, client, prefix);
    const any = await measureClaim(q, client, undefined, 1);
    const typed = await measureClaim(q, client, ['wanted'], 1);
    return { any, typed };
  } finally {
    await q.close();
  }
}
