/**
 * Concurrent adds, cancels and retries from several queue instances (several connections):
 * idempotency keys and status changes hold under races (SPEC §4.1 rules 2-4, §3, DETAILS
 * "job:cancelled, job:retried fire only when the status really changed").
 */
import { expect, it } from 'vitest';
import { DependencyError } from '../../src/errors.js';
import type { JobQueue } from '../../src/queue.js';
import { forEachBackend } from '../helpers/backends.js';
import { ids } from './assertions.js';

const INSTANCES = 5;

forEachBackend('concurrent operations', (ctx) => {
  function queues(): JobQueue[] {
    return [ctx.queue, ...Array.from({ length: INSTANCES - 1 }, () => ctx.makeQueue())];
  }

  function countEvents(qs: JobQueue[], event: 'job:added' | 'job:cancelled' | 'job:retried'): number[] {
    const seen: number[] = [];
    for (const q of qs) q.on(event, ({ jobId }) => seen.push(jobId));
    return seen;
  }

  it('50 parallel addJob calls with one idempotency key create one job and return one id', async () => {
    const qs = queues();
    const added = countEvents(qs, 'job:added');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        qs[i % qs.length]!.addJob({ jobType: 'email', payload: { attempt: i }, idempotencyKey: 'same-key' }),
      ),
    );
    const id = results[0]!;
    expect(results).toEqual(Array(50).fill(id));
    const all = await ctx.queue.getAllJobs();
    expect(ids(all)).toEqual([id]);
    expect(all[0]).toMatchObject({ idempotencyKey: 'same-key', status: 'pending' });
    expect(added).toEqual([id]);
    expect((await ctx.queue.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added']);
  });

  it('50 parallel addJob calls without a key create 50 jobs with distinct ids', async () => {
    const qs = queues();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => qs[i % qs.length]!.addJob({ jobType: 'email', payload: { i } })),
    );
    expect(new Set(results).size).toBe(50);
    expect(await ctx.queue.getAllJobs()).toHaveLength(50);
  });

  it('parallel addJobs batches with overlapping keys resolve each key to one job', async () => {
    const qs = queues();
    const added = countEvents(qs, 'job:added');
    const KEYS = 20;
    const BATCHES = 10;
    // Every batch holds all 20 shared keys (rotated, so batches meet them in different
    // orders) plus 3 jobs of its own without a key.
    const batches = Array.from({ length: BATCHES }, (_, b) => [
      ...Array.from({ length: KEYS }, (_, k) => {
        const key = (k + b * 3) % KEYS;
        return { jobType: 'shared', payload: { key, batch: b }, idempotencyKey: `key-${key}` };
      }),
      ...Array.from({ length: 3 }, (_, u) => ({ jobType: 'own', payload: { batch: b, u } })),
    ]);
    const results = await Promise.all(batches.map((batch, b) => qs[b % qs.length]!.addJobs(batch)));

    const idByKey = new Map<string, number>();
    results.forEach((result, b) => {
      expect(result).toHaveLength(KEYS + 3);
      batches[b]!.forEach((job, i) => {
        if (!('idempotencyKey' in job)) return;
        const known = idByKey.get(job.idempotencyKey);
        if (known === undefined) idByKey.set(job.idempotencyKey, result[i]!);
        else expect(result[i], `${job.idempotencyKey} in batch ${b}`).toBe(known);
      });
    });
    expect(idByKey.size).toBe(KEYS);
    expect(new Set(idByKey.values()).size).toBe(KEYS);

    const all = await ctx.queue.getAllJobs();
    expect(all).toHaveLength(KEYS + BATCHES * 3);
    for (const [key, id] of idByKey) {
      expect(all.find((job) => job.id === id)?.idempotencyKey).toBe(key);
    }
    // One job:added per inserted job, whichever instance inserted it.
    expect([...added].sort((a, b) => a - b)).toEqual(ids(all).sort((a, b) => a - b));
  });

  it('parallel cancelJob calls cancel once: one event, one hook', async () => {
    const qs = queues();
    const cancelled = countEvents(qs, 'job:cancelled');
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {} });
    await Promise.all(Array.from({ length: 20 }, (_, i) => qs[i % qs.length]!.cancelJob(id)));
    expect(cancelled).toEqual([id]);
    expect((await ctx.queue.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added', 'cancelled']);
  });

  it('parallel retryJob calls retry once: one event, one hook', async () => {
    const qs = queues();
    const retried = countEvents(qs, 'job:retried');
    const id = await ctx.queue.addJob({ jobType: 'email', payload: {} });
    await ctx.queue.cancelJob(id);
    await Promise.all(Array.from({ length: 20 }, (_, i) => qs[i % qs.length]!.retryJob(id)));
    expect(retried).toEqual([id]);
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'pending' });
    expect((await ctx.queue.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added', 'cancelled', 'retried']);
  });

  it('editJob racing cancelJob either edits before the cancel or not at all', async () => {
    const [editor, canceller] = [ctx.makeQueue(), ctx.makeQueue()];
    for (let round = 0; round < 20; round++) {
      const id = await ctx.queue.addJob({ jobType: 'race', payload: { round } });
      await Promise.all([editor.editJob(id, { priority: 9 }), canceller.cancelJob(id)]);
      const job = await ctx.queue.getJob(id);
      const types = (await ctx.queue.getJobEvents(id)).map((e) => e.eventType);
      expect(job?.status).toBe('cancelled');
      if (job?.priority === 9) expect(types, `round ${round}`).toEqual(['added', 'edited', 'cancelled']);
      else expect(types, `round ${round}`).toEqual(['added', 'cancelled']);
    }
  });

  it('adding a dependent while its prerequisite is cancelled never leaves the dependent pending', async () => {
    const [adder, canceller] = [ctx.makeQueue(), ctx.makeQueue()];
    for (let round = 0; round < 20; round++) {
      const prerequisite = await ctx.queue.addJob({ jobType: 'pre', payload: { round } });
      const [added] = await Promise.allSettled([
        adder.addJob({ jobType: 'dep', payload: { round }, dependsOn: { jobIds: [prerequisite] } }),
        canceller.cancelJob(prerequisite),
      ]);
      if (added.status === 'fulfilled') {
        // Inserted first: the cancel must have cascaded to it.
        expect(await ctx.queue.getJob(added.value), `round ${round}`).toMatchObject({ status: 'cancelled' });
      } else {
        // Cancelled first: the insert is refused and writes nothing.
        expect(added.reason, `round ${round}`).toBeInstanceOf(DependencyError);
      }
    }
    expect(await ctx.queue.getJobsByStatus('pending')).toEqual([]);
  });

  it('cancelAllUpcomingJobs racing from several instances cancels each job once', async () => {
    const qs = queues();
    const cancelled = countEvents(qs, 'job:cancelled');
    const added = await ctx.queue.addJobs(Array.from({ length: 30 }, (_, i) => ({ jobType: 'bulk', payload: { i } })));
    const counts = await Promise.all(qs.map((q) => q.cancelAllUpcomingJobs({ jobType: 'bulk' })));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(30);
    expect([...cancelled].sort((a, b) => a - b)).toEqual(added);
    expect(await ctx.queue.getJobsByStatus('cancelled')).toHaveLength(30);
  });
});
