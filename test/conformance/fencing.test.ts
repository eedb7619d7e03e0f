/**
 * Fencing (DETAILS "Retries, failures, reclaim"): a worker records an outcome only while the job
 * is still processing and locked by it. A worker whose job was reclaimed and run by another
 * worker cannot overwrite the newer outcome.
 */
import { expect, it } from 'vitest';
import { ManualClock, forEachBackend } from '../helpers/backends.js';
import { deferred, trackRunners } from './processing-support.js';

forEachBackend('fencing', (ctx) => {
  const track = trackRunners();

  /** Worker A claims the job and blocks; the job is reclaimed; returns what A's queue saw. */
  async function stalledWorker(outcome: 'complete' | 'fail') {
    const clock = new ManualClock(Date.now());
    const queueA = ctx.makeQueue({ clock });
    const queueB = ctx.makeQueue({ clock });
    const id = await queueA.addJob({ jobType: 'work', payload: {}, maxAttempts: 3 });
    const seenByA: string[] = [];
    queueA.on('job:completed', () => seenByA.push('completed'));
    queueA.on('job:failed', () => seenByA.push('failed'));
    const started = deferred();
    const release = deferred();
    const workerA = track(
      queueA.createProcessor(
        {
          work: async () => {
            started.resolve();
            await release.promise;
            if (outcome === 'fail') throw new Error('late failure from A');
            return 'from A';
          },
        },
        { workerId: 'worker-a', pollInterval: 60_000 },
      ),
    );
    workerA.startInBackground();
    await started.promise;
    workerA.stop();
    clock.advance(11 * 60_000);
    expect(await queueB.reclaimStuckJobs(10)).toBe(1);
    return { id, queueB, seenByA, release, workerA };
  }

  it('discards the late completion of a worker whose job was reclaimed and completed by another', async () => {
    const { id, queueB, seenByA, release, workerA } = await stalledWorker('complete');
    expect(await queueB.createProcessor({ work: async () => 'from B' }, { workerId: 'worker-b' }).start()).toBe(1);
    release.resolve();
    await workerA.stopAndDrain();
    const job = await queueB.getJob(id);
    expect(job).toMatchObject({ status: 'completed', output: 'from B', attempts: 2 });
    expect(seenByA).toEqual([]);
  });

  it('discards the late failure of a worker whose job was reclaimed', async () => {
    const { id, queueB, seenByA, release, workerA } = await stalledWorker('fail');
    release.resolve();
    await workerA.stopAndDrain();
    const job = await queueB.getJob(id);
    expect(job?.status).toBe('pending');
    expect(job?.errorHistory.map((e) => e.message)).not.toContain('late failure from A');
    expect(seenByA).toEqual([]);
    expect(await queueB.createProcessor({ work: async () => 'from B' }, { workerId: 'worker-b' }).start()).toBe(1);
    expect(await queueB.getJob(id)).toMatchObject({ status: 'completed', output: 'from B' });
  });
});
