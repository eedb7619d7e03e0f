/**
 * Parked jobs under a random mix of operations (seeded, so a failure repeats): claims with and
 * without group limits or type filters, completions, failures, waits, reclaims, cancels and
 * edits of jobs in groups and behind tag barriers. After every step the index checker verifies
 * that each parked job is held back by something whose end releases it; at the end, claims
 * without limits run every job that is left, so nothing was stranded.
 */
import { describe, expect, it } from 'vitest';
import { backendOf } from '../../src/queue.js';
import type { JobOptions } from '../../src/types.js';
import { expectConsistent } from './consistency.js';
import { useRedis } from './support.js';
import { failOne } from '../helpers/fail.js';

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TAGS = ['t1', 't2', 't3'];
const TYPES = ['a', 'b'];

describe('redis parked jobs, random operations', () => {
  const ctx = useRedis();

  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`keeps every parked job releasable (seed ${seed})`, async () => {
      const rnd = random(seed);
      const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
      const q = ctx.queue();
      const store = backendOf(q);
      let now = Date.UTC(2030, 0, 1);
      const at = () => new Date(now);
      const running = new Map<number, string>(); // job id -> worker

      const newJob = (): JobOptions => ({
        jobType: pick(TYPES),
        payload: {},
        priority: Math.floor(rnd() * 3),
        runAt: new Date(now - 1000 + (rnd() < 0.2 ? 5000 : 0)),
        maxAttempts: 2,
        ...(rnd() < 0.5 ? { group: { id: pick(['g1', 'g2']) } } : {}),
        ...(rnd() < 0.5 ? { tags: TAGS.filter(() => rnd() < 0.5) } : {}),
        ...(rnd() < 0.3 ? { dependsOn: { tags: [pick(TAGS)] } } : {}),
      });

      for (let step = 0; step < 200; step++) {
        const op = rnd();
        const ids = [...running.keys()];
        if (op < 0.25) {
          await q.addJobs(Array.from({ length: 1 + Math.floor(rnd() * 3) }, newJob));
        } else if (op < 0.5) {
          const worker = pick(['w1', 'w2']);
          const claimed = await store.claimJobs({
            workerId: worker,
            batchSize: 1 + Math.floor(rnd() * 3),
            now: at(),
            ...(rnd() < 0.8 ? { groupConcurrency: 1 } : {}),
            ...(rnd() < 0.3 ? { jobTypes: [pick(TYPES)] } : {}),
          });
          for (const j of claimed) running.set(j.id, worker);
        } else if (op < 0.65 && ids.length > 0) {
          const done = ids.filter(() => rnd() < 0.6);
          await store.completeJobs(
            done.map((jobId) => ({ jobId, workerId: running.get(jobId)! })),
            at(),
          );
          done.forEach((id) => running.delete(id));
        } else if (op < 0.72 && ids.length > 0) {
          const jobId = pick(ids);
          const retryAt = rnd() < 0.5 ? new Date(now + 2000) : null;
          await failOne(store, {
            jobId,
            workerId: running.get(jobId)!,
            message: 'x',
            reason: 'handler_error',
            retryAt,
            now: at(),
          });
          running.delete(jobId);
        } else if (op < 0.78 && ids.length > 0) {
          const jobId = pick(ids);
          await store.enterWait({
            jobId,
            workerId: running.get(jobId)!,
            waitUntil: new Date(now + 3000),
            tokenId: null,
            now: at(),
          });
          running.delete(jobId);
        } else if (op < 0.82) {
          const result = await store.reclaimStuckJobs({ maxProcessingMs: 4000, now: at() });
          [...result.requeuedIds, ...result.failedIds].forEach((id) => running.delete(id));
        } else if (op < 0.9) {
          const pending = await q.getJobsByStatus('pending', 1000);
          if (pending.length > 0) await q.cancelJob(pick(pending).id);
        } else {
          const pending = await q.getJobsByStatus('pending', 1000);
          if (pending.length > 0) {
            const edit = pick([
              { tags: TAGS.filter(() => rnd() < 0.5) },
              { priority: Math.floor(rnd() * 3) },
              { runAt: new Date(now + (rnd() < 0.5 ? 3000 : -1000)) },
            ]);
            await q.editJob(pick(pending).id, edit);
          }
        }
        now += Math.floor(rnd() * 700);
        await expectConsistent(ctx.redis, ctx.prefix);
      }

      // Everything left can run: claims without limits, completing each at once, drain it.
      await store.completeJobs(
        [...running].map(([jobId, workerId]) => ({ jobId, workerId })),
        at(),
      );
      now += 60_000;
      for (let round = 0; round < 200; round++) {
        const claimed = await store.claimJobs({ workerId: 'w', batchSize: 5, now: at(), groupConcurrency: 1 });
        if (claimed.length === 0) break;
        await store.completeJobs(
          claimed.map((j) => ({ jobId: j.id, workerId: 'w' })),
          at(),
        );
        await expectConsistent(ctx.redis, ctx.prefix);
      }
      const left = [
        ...(await q.getJobsByStatus('pending', 1000)),
        ...(await q.getJobsByStatus('waiting', 1000)),
        ...(await q.getJobsByStatus('failed', 1000)).filter((j) => j.nextAttemptAt !== null),
      ];
      // Only jobs blocked for good may stay: two pending jobs each carrying the other's barrier.
      for (const job of left) {
        const holders = left.filter(
          (o) =>
            o.id !== job.id &&
            (job.dependsOnTags ?? []).length > 0 &&
            job.dependsOnTags!.every((t) => o.tags.includes(t)),
        );
        expect(holders.length, `job ${job.id} (${JSON.stringify(job)}) is left unclaimed`).toBeGreaterThan(0);
      }
    }, 120_000);
  }
});
