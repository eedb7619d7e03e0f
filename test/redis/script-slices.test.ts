/**
 * Bounded work per script: a bulk cancel or edit by filter and a job listing examine at most
 * `scriptSlice.read` (listings) or `scriptSlice.write` (bulk changes) candidate
 * jobs per script call (slices.ts), newest first, and the result is
 * the same as with one large slice. Script calls are counted with INFO commandstats on a private
 * redis-server, so no other client's commands are counted.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scriptSlice } from '../../src/backends/redis/slices.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { JobRecord } from '../../src/types.js';
import { startPrivateRedis, type PrivateServer } from '../helpers/private-servers.js';

const SLICE = 10;
const DEFAULT_SLICE = { ...scriptSlice };
/** Larger than every seeded store: one slice. */
const WHOLE = 100_000;
/** Pending jobs a filter on priority must examine: not a multiple of SLICE, so the last slice is short. */
const JOBS = 75;

/** Script calls the server ran so far (EVALSHA, and EVAL after a script-cache miss). */
async function scriptCalls(client: Redis): Promise<number> {
  const info = await client.info('commandstats');
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_(evalsha|eval):calls=(\d+)/gm)) total += Number(m[2]);
  return total;
}

/** Range reads of sorted sets the server ran so far, inside scripts too. */
async function rangeReads(client: Redis): Promise<number> {
  const info = await client.info('commandstats');
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_zrevrange\w*:calls=(\d+)/gm)) total += Number(m[1]);
  return total;
}

/**
 * JOBS pending jobs, every third of priority 2 and the rest of priority 1, then one job of
 * priority 1 depending on the oldest priority-2 job (so cancelling that one cascades to it).
 */
async function seed(q: JobQueue): Promise<void> {
  const ids = await q.addJobs(
    Array.from({ length: JOBS - 1 }, (_, i) => ({ jobType: 'mail', payload: { i }, priority: i % 3 === 0 ? 2 : 1 })),
  );
  await q.addJobs([{ jobType: 'mail', payload: { i: JOBS - 1 }, priority: 1, dependsOn: { jobIds: [ids[0]!] } }]);
}

/** Each job's payload index with its status and priority, for comparing two stores. */
async function states(q: JobQueue): Promise<string[]> {
  const jobs: JobRecord[] = await q.getJobs();
  return jobs.map((j) => `${String((j.payload as { i: number }).i)}:${j.status}:${String(j.priority)}`).sort();
}

describe('redis bounded script slices', () => {
  let server: PrivateServer;
  let client: Redis;
  let n = 0;

  beforeAll(async () => {
    server = await startPrivateRedis();
    client = new Redis({ port: server.port });
  }, 30_000);

  afterEach(() => {
    Object.assign(scriptSlice, DEFAULT_SLICE);
  });

  afterAll(async () => {
    client.disconnect();
    await server.stop();
  });

  /** A seeded queue under a fresh prefix, with its store identity already checked. */
  async function seeded(): Promise<JobQueue> {
    n += 1;
    const q = initJobQueue({ backend: 'redis', client, keyPrefix: `slices${String(n)}:` });
    await seed(q);
    return q;
  }

  /** Runs `op` with the given slice size; returns its result and the script calls it made. */
  async function counted<T>(slice: number, op: () => Promise<T>): Promise<{ result: T; calls: number }> {
    scriptSlice.read = slice;
    scriptSlice.write = slice;
    const before = await scriptCalls(client);
    const result = await op();
    const calls = (await scriptCalls(client)) - before;
    Object.assign(scriptSlice, DEFAULT_SLICE);
    return { result, calls };
  }

  it('cancels by an unindexed filter in ceil(candidates / slice) script calls, with the same result and cascades', async () => {
    const sliced = await seeded();
    const whole = await seeded();
    const a = await counted(SLICE, () => sliced.cancelAllUpcomingJobs({ priority: 2 }));
    const b = await counted(WHOLE, () => whole.cancelAllUpcomingJobs({ priority: 2 }));
    expect(a.calls).toBe(Math.ceil(JOBS / SLICE));
    expect(b.calls).toBe(1);
    expect(a.result).toBe(b.result);
    const after = await states(sliced);
    expect(after).toEqual(await states(whole));
    // Every priority-2 job and the dependent of the oldest one are cancelled; the rest wait.
    expect(after.filter((s) => s.includes(':cancelled:'))).toHaveLength(Math.ceil((JOBS - 1) / 3) + 1);
    expect(after).toContain(`${String(JOBS - 1)}:cancelled:1`);
  });

  it('edits by an unindexed filter in ceil(candidates / slice) script calls, with the same result', async () => {
    const sliced = await seeded();
    const whole = await seeded();
    const a = await counted(SLICE, () => sliced.editAllPendingJobs({ priority: 2 }, { priority: 7 }));
    const b = await counted(WHOLE, () => whole.editAllPendingJobs({ priority: 2 }, { priority: 7 }));
    expect(a.calls).toBe(Math.ceil(JOBS / SLICE));
    expect(b.calls).toBe(1);
    expect(a.result).toBe(Math.ceil((JOBS - 1) / 3));
    expect(a.result).toBe(b.result);
    expect(await states(sliced)).toEqual(await states(whole));
  });

  it('lists a deep page of an unindexed filter slice by slice, with the same jobs as one slice', async () => {
    const q = await seeded();
    const page = () => q.getJobs({ priority: 1 }, 5, 40);
    const a = await counted(SLICE, page);
    const b = await counted(WHOLE, page);
    // Newest first: the 40 skipped and the 5 kept priority-1 jobs lie among the newest 68 candidates.
    expect(a.calls).toBe(7);
    expect(b.calls).toBe(1);
    expect(a.result.map((j) => j.id)).toEqual(b.result.map((j) => j.id));
    expect(a.result).toHaveLength(5);
  });

  it('jumps to a deep offset of an indexed filter by rank: one script call, one range read', async () => {
    const q = await seeded();
    await q.addJobs(Array.from({ length: 1200 }, (_, i) => ({ jobType: 'mail', payload: { i: JOBS + i } })));
    const reads = await rangeReads(client);
    const a = await counted(SLICE, () => q.getJobs({ jobType: 'mail' }, 5, 1100));
    expect(a.calls).toBe(1);
    expect((await rangeReads(client)) - reads).toBe(1);
    const all = await q.getJobs({ jobType: 'mail' });
    expect(a.result.map((j) => j.id)).toEqual(all.slice(1100, 1105).map((j) => j.id));
  });
});
