/**
 * No Redis call's work grows with the jobs stored. The same operations run on a store of 1,000
 * jobs and on one of 50,000 (tagged, of four types, a third scheduled later, some grouped):
 * an `addJobs` of 1,000, a completion of 50, a cancel by tag, a cleanup of finished jobs and
 * the job counts. For each script call MONITOR gives the commands it ran and the elements
 * they named (scriptCalls in counters.ts): both are counts, not times, so they do not depend on
 * the machine's load. The calls of each operation and the largest figures of one call must be
 * the same at both sizes, and a cleanup must remove each job with a few commands, not one per
 * index it is in.
 */
import type { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { scriptSlice } from '../../src/backends/redis/slices.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { JobOptions } from '../../src/types.js';
import { scriptCalls, usePrivateRedis, type ScriptCall } from './counters.js';
import { storeOf } from './support.js';

const WORKER = 'w1';
const CHUNK = 1000;
const HOUR_MS = 60 * 60 * 1000;
const TYPES = ['email', 'report', 'sync', 'webhook'];
/**
 * The large store. The figures are counts, so work that followed the store would show as 50
 * times the small store's; 200,000 jobs would take several times as long to add on a shared
 * 2-core machine and show nothing more.
 */
const LARGE = 50_000;

/** The job at index `i` of a store: its shape depends on `i` only. */
function jobAt(i: number): JobOptions {
  return {
    jobType: TYPES[i % TYPES.length]!,
    payload: { i, to: `user${i % 10_000}@example.com` },
    tags: [`tenant:${i % 50}`, `user:${i % 10_000}`],
    priority: i % 5,
    ...(i % 3 === 0 ? { runAt: new Date(Date.now() + HOUR_MS + (i % 720) * HOUR_MS) } : {}),
    ...(i % 7 === 0 ? { group: { id: `customer:${i % 1000}` } } : {}),
  };
}

/** Adds the jobs `make(0)` to `make(count - 1)`, two calls of CHUNK in flight. */
async function addJobs(q: JobQueue, count: number, make: (i: number) => JobOptions = jobAt): Promise<void> {
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < count) {
        const from = next;
        next = Math.min(count, next + CHUNK);
        await q.addJobs(Array.from({ length: next - from }, (_, k) => make(from + k)));
      }
    }),
  );
}

/** A job of the cancel: scheduled later, so no claim takes it. */
function toCancel(i: number): JobOptions {
  return { ...jobAt(i), tags: ['cancel-me'], runAt: new Date(Date.now() + HOUR_MS) };
}

/** Claims up to `count` due jobs for WORKER (not measured) and returns their ids. */
async function claim(q: JobQueue, count: number): Promise<number[]> {
  const ids: number[] = [];
  while (ids.length < count) {
    const batch = Math.min(scriptSlice.process, count - ids.length);
    const claimed = await storeOf(q).claimJobs({ workerId: WORKER, batchSize: batch, now: new Date() });
    if (claimed.length === 0) break;
    ids.push(...claimed.map((j) => j.id));
  }
  return ids;
}

async function complete(q: JobQueue, ids: number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += scriptSlice.process) {
    const slice = ids.slice(i, i + scriptSlice.process);
    await storeOf(q).completeJobs(
      slice.map((jobId) => ({ jobId, workerId: WORKER })),
      new Date(),
    );
  }
}

/** The calls of one operation: how many, and the most commands and elements of one call. */
interface Work {
  calls: number;
  commands: number;
  elements: number;
}

function work(calls: ScriptCall[], script: string): Work {
  const mine = calls.filter((c) => c.script === script);
  return {
    calls: mine.length,
    commands: Math.max(0, ...mine.map((c) => c.commands)),
    elements: Math.max(0, ...mine.map((c) => c.elements)),
  };
}

interface Costs {
  addJobs: Work;
  completeJobs: Work;
  cancelJobs: Work;
  cleanupJobs: Work;
  cleanedUp: number;
  countJobTypes: Work;
}

/** A store of `size` jobs under `prefix`, then each operation once, its calls counted. */
async function costsAt(client: Redis, prefix: string, size: number): Promise<Costs> {
  const q = initJobQueue({ backend: 'redis', client, keyPrefix: prefix });
  try {
    // The first jobs are the same in both stores: claims take the best of them, oldest first.
    await addJobs(q, size);
    await addJobs(q, 100, toCancel);
    const add = await scriptCalls(client, () => addJobs(q, CHUNK));
    // The jobs processing meanwhile are the measured ones only: the groups they free are the same.
    const first = await claim(q, scriptSlice.process);
    const completion = await scriptCalls(client, () => complete(q, first));
    const more = await claim(q, 300 - first.length);
    expect(first.length + more.length).toBe(300);
    await complete(q, more);
    const cancel = await scriptCalls(client, () => q.cancelAllUpcomingJobs({ tags: { values: ['cancel-me'] } }));
    let cleanedUp = 0;
    const cleanup = await scriptCalls(client, async () => {
      cleanedUp = await q.cleanupOldJobs(0);
    });
    // A limit both stores reach in their pending jobs: the counts read as many jobs in each.
    const counts = await scriptCalls(client, () => q.getJobCounts({ limit: 1000 }));
    return {
      addJobs: work(add, 'addJobs'),
      completeJobs: work(completion, 'completeJobs'),
      cancelJobs: work(cancel, 'cancelJobs'),
      cleanupJobs: work(cleanup, 'cleanupJobs'),
      cleanedUp,
      countJobTypes: work(counts, 'countJobTypes'),
    };
  } finally {
    await q.close();
  }
}

describe('redis call cost at 1,000 and 50,000 jobs', () => {
  const server = usePrivateRedis();
  let small: Costs;
  let large: Costs;
  beforeAll(async () => {
    small = await costsAt(server.client, 'cost-small', 1_000);
    large = await costsAt(server.client, 'cost-large', LARGE);
  }, 900_000);

  it('runs as many commands, naming as many elements, in the largest call of each operation', () => {
    // The jobs the operations touch, the same in both stores.
    expect(small.cleanedUp).toBe(400);
    expect(large.cleanedUp).toBe(400);
    expect(small.addJobs.calls).toBe(1);
    expect(small.completeJobs.calls).toBe(1);
    // 1,000 pending jobs read, a slice per call.
    expect(small.countJobTypes.calls).toBe(Math.ceil(1000 / scriptSlice.count));
    expect(large).toEqual(small);
  });

  it('removes a finished job with a few commands, whatever the indexes it is in', () => {
    // One call per slice of the cleanup; within it, a job costs the read of its metadata and of
    // its events; every index, the payload and the events go with one command per key for the
    // whole slice.
    expect(large.cleanupJobs.calls).toBe(Math.ceil(400 / scriptSlice.cleanup) + 1);
    expect(large.cleanupJobs.commands).toBeLessThanOrEqual(3 * scriptSlice.cleanup + 20);
  });

  it('cancels a job with about ten commands when no job depends on another', () => {
    // Each job: its metadata read and saved, its old place cleared (five sets, its typed entry,
    // its group's lane), its status moved; its event, new status and new place go with one
    // command per key for the whole slice, and no cascade is looked for.
    expect(large.cancelJobs.calls).toBe(5);
    expect(large.cancelJobs.commands).toBeLessThanOrEqual(12 * scriptSlice.write + 20);
  });
});
