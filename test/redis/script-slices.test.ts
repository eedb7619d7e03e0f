/**
 * Bounded work per script: a bulk cancel or edit by filter and a job listing examine at most
 * `scriptSlice.read` (listings) or `scriptSlice.write` (bulk changes) candidate
 * jobs per script call (slices.ts), newest first, and the result is
 * the same as with one large slice; a cancel whose cascades are large takes fewer candidates
 * per call; a cleanup removes at most `scriptSlice.cleanup` jobs or `scriptSlice.events` events
 * per call; a reclaim examines at most `scriptSlice.write` stuck jobs per call; a claim or a
 * flush of completions takes at most `scriptSlice.process` jobs per call, whatever the batch.
 * Script calls are counted with INFO commandstats on a private redis-server, so no
 * other client's commands are counted.
 */
import { Redis } from 'ioredis';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { library } from '../../src/backends/redis/lua.generated.js';
import { redisKeys } from '../../src/backends/redis/keys.js';
import { scriptSlice } from '../../src/backends/redis/slices.js';
import { systemClock } from '../../src/clock.js';
import { completionBuffer, failureBuffer } from '../../src/write-buffer.js';
import { backendOf, initJobQueue, type JobQueue } from '../../src/queue.js';
import type { JobRecord } from '../../src/types.js';
import { commandCalls, usePrivateRedis } from './counters.js';
import { failOne } from '../helpers/fail.js';

const SLICE = 10;
const DEFAULT_SLICE = { ...scriptSlice };
/** Larger than every seeded store: one slice. */
const WHOLE = 100_000;
/** Pending jobs a filter on priority must examine: not a multiple of SLICE, so the last slice is short. */
const JOBS = 75;

/** Script calls the server ran so far (FCALL; EVALSHA, and EVAL after a script-cache miss). */
const scriptCalls = (client: Redis) =>
  commandCalls(client, (name) => name === 'fcall' || name === 'evalsha' || name === 'eval');

/** Range reads of sorted sets the server ran so far, inside scripts too. */
const rangeReads = (client: Redis) => commandCalls(client, (name) => name.startsWith('zrevrange'));

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
  const server = usePrivateRedis();
  let client: Redis;
  beforeAll(() => {
    client = server.client;
  });
  let n = 0;

  afterEach(() => {
    Object.assign(scriptSlice, DEFAULT_SLICE);
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

  it('cancels by an unindexed filter in 1 + ceil((candidates - 1) / slice) script calls, with the same result and cascades', async () => {
    const sliced = await seeded();
    const whole = await seeded();
    const a = await counted(SLICE, () => sliced.cancelAllUpcomingJobs({ priority: 2 }));
    const b = await counted(WHOLE, () => whole.cancelAllUpcomingJobs({ priority: 2 }));
    // A first slice of one candidate, then full slices (no cascade is larger than a slice).
    expect(a.calls).toBe(1 + Math.ceil((JOBS - 1) / SLICE));
    expect(b.calls).toBe(2);
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

  /** The seeded jobs, claimed and failed for good (no retry left). */
  async function seededFailed(): Promise<JobQueue> {
    const q = await seeded();
    const backend = backendOf(q);
    const now = new Date();
    const claimed = await backend.claimJobs({ workerId: 'w', batchSize: JOBS, now });
    for (const job of claimed) {
      await failOne(backend, {
        jobId: job.id,
        workerId: 'w',
        message: 'x',
        reason: 'handler_error',
        retryAt: null,
        now,
      });
    }
    // The dependent waits for its prerequisite: JOBS - 1 failed, and the dependent cancelled by
    // the cascade of its failed prerequisite.
    expect(claimed).toHaveLength(JOBS - 1);
    return q;
  }

  it('retries failed jobs by an unindexed filter in ceil(candidates / slice) script calls, with the same result', async () => {
    const sliced = await seededFailed();
    const whole = await seededFailed();
    const a = await counted(SLICE, () => sliced.retryAllFailedJobs({ priority: 2 }));
    const b = await counted(WHOLE, () => whole.retryAllFailedJobs({ priority: 2 }));
    expect(a.calls).toBe(Math.ceil((JOBS - 1) / SLICE));
    expect(b.calls).toBe(1);
    expect(a.result).toBe(Math.ceil((JOBS - 1) / 3));
    expect(a.result).toBe(b.result);
    expect(await states(sliced)).toEqual(await states(whole));
  });

  it('counts by an unindexed filter slice by slice, and from the index alone when it answers the filter', async () => {
    const q = await seededFailed();
    const sliced = await counted(SLICE, () => q.countJobs({ status: 'failed', priority: 2 }));
    expect(sliced.calls).toBe(Math.ceil((JOBS - 1) / SLICE));
    expect(sliced.result).toBe(Math.ceil((JOBS - 1) / 3));
    const indexed = await counted(SLICE, () => q.countJobs({ status: 'failed' }));
    expect(indexed).toEqual({ result: JOBS - 1, calls: 1 });
    const capped = await counted(SLICE, () => q.countJobs({ status: 'failed', priority: 1 }, 12));
    expect(capped.result).toBe(12);
    expect(capped.calls).toBe(2);
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

  it('walks an index that answers the filter 4 slices of candidates a call, keeping at most a slice of rows', async () => {
    n += 1;
    const q = initJobQueue({ backend: 'redis', client, keyPrefix: `slices${String(n)}:` });
    await q.addJobs(
      Array.from({ length: JOBS }, (_, i) => ({ jobType: 'mail', payload: { i }, tags: [`t${String(i % 2)}`] })),
    );
    const everything = await counted(SLICE, () => q.getJobsByTags(['t0', 't1'], 'any'));
    // At most SLICE rows per call: ceil(75 / 10) calls, the whole set newest first.
    expect(everything.calls).toBe(Math.ceil(JOBS / SLICE));
    expect(everything.result.map((j) => (j.payload as { i: number }).i)).toEqual(
      Array.from({ length: JOBS }, (_, i) => JOBS - 1 - i),
    );
    // Skipping reads 4 slices of index entries a call: 40 skipped in one call, then the page.
    const page = await counted(SLICE, () => q.getJobsByTags(['t0', 't1'], 'any', 5, 40));
    expect(page.calls).toBe(2);
    expect(page.result.map((j) => (j.payload as { i: number }).i)).toEqual([34, 33, 32, 31, 30]);
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

  it('shrinks the slices of a cancel whose cascades are large, so no call cancels more than a slice of jobs', async () => {
    /** 30 jobs tagged `root`, each with 9 dependents: cancelling one cancels 10 jobs. */
    async function withCascades(): Promise<JobQueue> {
      n += 1;
      const q = initJobQueue({ backend: 'redis', client, keyPrefix: `slices${String(n)}:` });
      for (let r = 0; r < 30; r++) {
        const [root] = await q.addJobs([{ jobType: 'mail', payload: { i: r * 10 }, tags: ['root'] }]);
        await q.addJobs(
          Array.from({ length: 9 }, (_, d) => ({
            jobType: 'mail',
            payload: { i: r * 10 + d + 1 },
            dependsOn: { jobIds: [root!] },
          })),
        );
      }
      return q;
    }
    const sliced = await withCascades();
    const whole = await withCascades();
    // The work of each call: jobs cancelled by the filter plus dependents cancelled by cascade.
    const work: number[] = [];
    // The scripts run as functions of the library (scripts.ts): the cancel script's replies.
    const target = client as unknown as { fcall: (...args: unknown[]) => Promise<unknown> };
    const fcall = target.fcall;
    target.fcall = async (...args: unknown[]) => {
      const reply = await fcall.apply(client, args);
      if (args[0] === `${library.name}_cancelJobs`) {
        const [cancelled, cascaded] = reply as [number[], unknown[], number];
        work.push(cancelled.length + cascaded.length);
      }
      return reply;
    };
    try {
      scriptSlice.write = SLICE;
      expect(await sliced.cancelAllUpcomingJobs({ tags: { values: ['root'] } })).toBe(30);
    } finally {
      target.fcall = fcall;
      Object.assign(scriptSlice, DEFAULT_SLICE);
    }
    scriptSlice.write = WHOLE;
    expect(await whole.cancelAllUpcomingJobs({ tags: { values: ['root'] } })).toBe(30);
    expect(await states(sliced)).toEqual(await states(whole));
    expect((await states(sliced)).every((s) => s.includes(':cancelled:'))).toBe(true);
    // One root and its 9 dependents per call (and a last call that finds none left): never
    // more than a slice of jobs.
    expect(work.filter((w) => w > 0)).toEqual(Array.from({ length: 30 }, () => SLICE));
    expect(work.every((w) => w <= SLICE)).toBe(true);
  });

  it('cleans up in script calls of at most scriptSlice.cleanup jobs and scriptSlice.events events', async () => {
    n += 1;
    const q = initJobQueue({ backend: 'redis', client, keyPrefix: `slices${String(n)}:` });
    await q.addJobs(Array.from({ length: 250 }, (_, i) => ({ jobType: 'mail', payload: { i }, tags: ['old'] })));
    await q.cancelAllUpcomingJobs({ tags: { values: ['old'] } });
    // 250 jobs with 2 events each (added, cancelled).
    scriptSlice.events = 100;
    const events = await counted(WHOLE, () => q.cleanupOldJobEvents(0));
    scriptSlice.cleanup = 100;
    const jobs = await counted(WHOLE, () => q.cleanupOldJobs(0));
    expect(events.result).toBe(500);
    // 5 full slices of events, one that finds nothing, then two walks of the 250 jobs for the
    // events kept in their metadata, 100, 100, 50 each: `added` (none: tagged jobs keep theirs
    // as events), and `processing` with `completed` (none: no job completed).
    expect(events.calls).toBe(12);
    expect(jobs.result).toBe(250);
    expect(jobs.calls).toBe(3); // 100, 100, then 50: short, nothing older is left
  });

  it('reclaims stuck jobs in ceil(candidates / slice) script calls, walking past the jobs whose own timeout is longer', async () => {
    const claimedAt = Date.now() + 1_000;
    /** 25 jobs claimed at one time: every fourth with a timeout of an hour, every third out of attempts. */
    async function stuck(): Promise<JobQueue> {
      n += 1;
      const q = initJobQueue({ backend: 'redis', client, keyPrefix: `slices${String(n)}:` });
      const ids = await q.addJobs(
        Array.from({ length: 25 }, (_, i) => ({
          jobType: 'mail',
          payload: { i },
          ...(i % 4 === 0 ? { timeoutMs: 3_600_000 } : {}),
          maxAttempts: i % 3 === 0 ? 1 : 3,
        })),
      );
      // A dependent of the first job that fails for good: the reclaim cancels it.
      await q.addJobs([{ jobType: 'mail', payload: { i: 25 }, dependsOn: { jobIds: [ids[3]!] } }]);
      const claimed = await backendOf(q).claimJobs({ workerId: 'w', batchSize: 25, now: new Date(claimedAt) });
      expect(claimed).toHaveLength(25);
      return q;
    }
    const reclaim = (q: JobQueue) =>
      backendOf(q).reclaimStuckJobs({ maxProcessingMs: 60_000, now: new Date(claimedAt + 120_000) });
    const sliced = await stuck();
    const whole = await stuck();
    const a = await counted(SLICE, () => reclaim(sliced));
    const b = await counted(WHOLE, () => reclaim(whole));
    expect(a.calls).toBe(Math.ceil(25 / SLICE));
    expect(b.calls).toBe(1);
    const sorted = (ids: number[]) => [...ids].sort((x, y) => x - y);
    expect(sorted(a.result.requeuedIds)).toEqual(sorted(b.result.requeuedIds));
    expect(sorted(a.result.failedIds)).toEqual(sorted(b.result.failedIds));
    expect(a.result.cascaded).toEqual(b.result.cascaded);
    // 7 jobs keep running (their own timeout), 6 of the others fail for good, 12 go back to pending.
    expect(a.result.requeuedIds).toHaveLength(12);
    expect(a.result.failedIds).toHaveLength(6);
    expect(a.result.cascaded).toHaveLength(1);
    const after = await states(sliced);
    expect(after).toEqual(await states(whole));
    expect(after.filter((s) => s.includes(':processing:'))).toHaveLength(7);
  });
  it('claims a batch larger than scriptSlice.process in ceil(batch / slice) script calls, best first', async () => {
    n += 1;
    const q = initJobQueue({ backend: 'redis', client, keyPrefix: `slices${String(n)}:` });
    const ids = await q.addJobs(
      Array.from({ length: 25 }, (_, i) => ({ jobType: 'mail', payload: { i }, priority: i % 2 })),
    );
    const best = [...ids.filter((_, i) => i % 2 === 1), ...ids.filter((_, i) => i % 2 === 0)];
    const claim = (batchSize: number) =>
      counted(WHOLE, () => {
        scriptSlice.process = SLICE;
        return backendOf(q).claimJobs({ workerId: 'w', batchSize, now: new Date() });
      });
    // 20 jobs in two full calls; then the 5 left, in one call that falls short.
    const first = await claim(20);
    const second = await claim(25);
    expect(first.calls).toBe(2);
    expect(second.calls).toBe(1);
    expect([...first.result, ...second.result].map((j) => j.id)).toEqual(best);
    const third = await claim(SLICE * 3);
    expect(third.result).toEqual([]);
    expect(third.calls).toBe(1);
  });

  it('hands over the jobs of the calls before a claim call that fails, and reports the failure', async () => {
    n += 1;
    const prefix = `slices${String(n)}:`;
    const q = initJobQueue({ backend: 'redis', client, keyPrefix: prefix });
    const ids = await q.addJobs(Array.from({ length: 15 }, (_, i) => ({ jobType: 'mail', payload: { i } })));
    // A job whose metadata holds a count that is not a number (a store edited by hand): the call
    // that claims it fails. (Metadata that is not a job's at all is passed over instead:
    // unreadable-metadata.test.ts.)
    const stored = JSON.parse((await client.hget(redisKeys(prefix).jobs, String(ids[12])))!) as Record<string, unknown>;
    await client.hset(redisKeys(prefix).jobs, String(ids[12]), JSON.stringify({ ...stored, attempts: 'none' }));
    const errors: Error[] = [];
    backendOf(q).setErrorReporter!((e) => errors.push(e));
    scriptSlice.process = SLICE;
    const claim = () => backendOf(q).claimJobs({ workerId: 'w', batchSize: 20, now: new Date() });
    const claimed = await claim();
    // The first call's 10 jobs, this worker's; the failed call claimed none.
    expect(claimed.map((j) => j.id)).toEqual(ids.slice(0, 10));
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/^claiming jobs failed after 10 were claimed, which run: .*arithmetic/);
    expect((await q.getJobsByStatus('processing')).map((j) => j.id).sort((a, b) => a - b)).toEqual(ids.slice(0, 10));
    expect((await q.getJob(ids[10]!))!.status).toBe('pending');
    // A claim whose first call fails throws, as before.
    await expect(claim()).rejects.toThrow(/arithmetic/);
    expect(errors).toHaveLength(1);
  });

  it('records a flush of more completions than scriptSlice.process in ceil(n / slice) script calls', async () => {
    n += 1;
    const q = initJobQueue({ backend: 'redis', client, keyPrefix: `slices${String(n)}:` });
    const ids = await q.addJobs(Array.from({ length: 25 }, (_, i) => ({ jobType: 'mail', payload: { i } })));
    await backendOf(q).claimJobs({ workerId: 'w', batchSize: 25, now: new Date() });
    const errors: Error[] = [];
    const buffer = completionBuffer(backendOf(q), systemClock, (e) => errors.push(e));
    const { result, calls } = await counted(WHOLE, () => {
      scriptSlice.process = SLICE;
      return Promise.all(ids.map((jobId) => buffer.add({ jobId, workerId: 'w', output: { jobId } })));
    });
    expect(result).toEqual(ids.map(() => true));
    expect(calls).toBe(3); // 10, 10, 5
    expect(errors).toEqual([]);
    const jobs = await Promise.all(ids.map((id) => q.getJob(id)));
    expect(jobs.map((j) => [j?.status, j?.output])).toEqual(ids.map((jobId) => ['completed', { jobId }]));
  });

  it('records a flush of more failures than scriptSlice.fail in ceil(n / slice) script calls', async () => {
    n += 1;
    const q = initJobQueue({ backend: 'redis', client, keyPrefix: `slices${String(n)}:` });
    const ids = await q.addJobs(Array.from({ length: 25 }, (_, i) => ({ jobType: 'mail', payload: { i } })));
    await backendOf(q).claimJobs({ workerId: 'w', batchSize: 25, now: new Date() });
    const errors: Error[] = [];
    const buffer = failureBuffer(backendOf(q), systemClock, (e) => errors.push(e));
    const retryAt = new Date(Date.now() + 60_000);
    const { result, calls } = await counted(WHOLE, () => {
      scriptSlice.fail = SLICE;
      return Promise.all(
        ids.map((jobId, i) =>
          buffer.add({
            jobId,
            workerId: 'w',
            message: `m${jobId}`,
            reason: 'handler_error',
            retryAt: i % 2 ? retryAt : null,
          }),
        ),
      );
    });
    expect(result).toEqual(ids.map(() => ({ deadLetterJobId: null, cascaded: [] })));
    expect(calls).toBe(3); // 10, 10, 5
    expect(errors).toEqual([]);
    const jobs = await Promise.all(ids.map((id) => q.getJob(id)));
    expect(jobs.map((j) => [j?.status, j?.nextAttemptAt, j?.errorHistory.map((e) => e.message)])).toEqual(
      ids.map((jobId, i) => ['failed', i % 2 ? retryAt : null, [`m${jobId}`]]),
    );
  });
});
