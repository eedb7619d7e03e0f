/**
 * Lost jobs (DETAILS "Retries, failures, reclaim"): when a job a processor runs is reclaimed,
 * the processor gives the run up: the handler's abort signal fires with a JobLostError, the
 * concurrency slot is freed, nothing the run returns later is written, and the loss is
 * reported once. `processor.stats()` shows the slots held and the runs given up.
 */
import { expect, it } from 'vitest';
import { JobLostError } from '../../src/errors.js';
import type { JobContext } from '../../src/handler-context.js';
import { ManualClock, forEachBackend } from '../helpers/backends.js';
import { deferred, trackRunners } from './processing-support.js';
import { waitFor } from '../helpers/wait.js';

forEachBackend('lost jobs', (ctx) => {
  const track = trackRunners();

  /**
   * A processor with one slot whose handler hangs on its first run (recording the abort
   * reason) and returns on the next. Returns what the test needs to reclaim and observe.
   */
  function hangingFirstRun(options: { leaseCheckInterval: number; beforeHang?: (c: JobContext) => Promise<void> }) {
    const clock = new ManualClock(Date.now());
    const queue = ctx.makeQueue({ clock });
    const other = ctx.makeQueue({ clock });
    const reasons: unknown[] = [];
    const onError: Error[] = [];
    const errorEvents: Error[] = [];
    queue.on('error', (e) => errorEvents.push(e));
    const started = deferred();
    let runs = 0;
    const processor = track(
      queue.createProcessor(
        {
          work: async (_p: unknown, signal: AbortSignal, c: JobContext) => {
            if (++runs > 1) return `run ${runs}`;
            signal.addEventListener('abort', () => reasons.push(signal.reason));
            started.resolve();
            await options.beforeHang?.(c);
            await new Promise(() => {}); // never settles, ignores the signal
          },
        },
        {
          workerId: 'worker-a',
          concurrency: 1,
          pollInterval: 50,
          leaseCheckInterval: options.leaseCheckInterval,
          onError: (e) => onError.push(e),
        },
      ),
    );
    return { clock, queue, other, reasons, onError, errorEvents, started, processor };
  }

  it('gives up a run whose job was reclaimed: the signal fires, the slot frees, the loss is reported once', async () => {
    const t = hangingFirstRun({ leaseCheckInterval: 50 });
    const id = await t.queue.addJob({ jobType: 'work', payload: {}, maxAttempts: 3 });
    t.processor.startInBackground();
    await t.started.promise;
    const held = t.processor.stats();
    expect(held).toMatchObject({ running: true, concurrency: 1, slotsInUse: 1, abandoned: 0 });
    expect(held.jobs).toEqual([{ id, jobType: 'work', startedAt: expect.any(Date) }]);

    t.clock.advance(11 * 60_000);
    expect(await t.other.reclaimStuckJobs(10)).toBe(1);
    // The reclaimed job runs again in the only slot, so the slot was freed.
    await waitFor(async () => (await t.queue.getJob(id))?.status === 'completed', {
      timeoutMs: 10_000,
      what: 'the second run to complete',
    });
    expect(await t.queue.getJob(id)).toMatchObject({ status: 'completed', output: 'run 2', attempts: 2 });

    expect(t.reasons).toHaveLength(1);
    expect(t.reasons[0]).toBeInstanceOf(JobLostError);
    const lost = t.onError.filter((e) => e instanceof JobLostError);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.message).toContain(`Job ${id} (work)`);
    expect(t.errorEvents).toEqual(t.onError);
    expect(t.processor.stats()).toMatchObject({ slotsInUse: 0, jobs: [], abandoned: 1 });
    await t.processor.stopAndDrain();
  });

  it('gives up a run at once when one of its writes is fenced out, without waiting for a lease check', async () => {
    const poke = deferred();
    const t = hangingFirstRun({
      leaseCheckInterval: 3_600_000,
      beforeHang: async (c) => {
        await poke.promise;
        await c.setProgress(50); // fenced: the job is no longer this worker's
      },
    });
    const id = await t.queue.addJob({ jobType: 'work', payload: {}, maxAttempts: 3 });
    t.processor.startInBackground();
    await t.started.promise;
    t.clock.advance(11 * 60_000);
    expect(await t.other.reclaimStuckJobs(10)).toBe(1);
    poke.resolve();
    await waitFor(async () => (await t.queue.getJob(id))?.status === 'completed', {
      timeoutMs: 10_000,
      what: 'the second run to complete',
    });
    expect(t.reasons).toEqual([expect.any(JobLostError)]);
    expect(t.onError.filter((e) => e instanceof JobLostError)).toHaveLength(1);
    expect((await t.queue.getJob(id))?.progress).not.toBe(50);
    await t.processor.stopAndDrain();
  });

  it('writes nothing for a given-up run that returns later', async () => {
    const clock = new ManualClock(Date.now());
    const queue = ctx.makeQueue({ clock });
    const started = deferred();
    const release = deferred();
    const completed: number[] = [];
    const failed: number[] = [];
    queue.on('job:completed', (e) => completed.push(e.jobId));
    queue.on('job:failed', (e) => failed.push(e.jobId));
    const processor = track(
      queue.createProcessor(
        {
          work: async () => {
            started.resolve();
            await release.promise;
            return 'late';
          },
        },
        { workerId: 'worker-a', pollInterval: 60_000, leaseCheckInterval: 50, onError: () => {} },
      ),
    );
    const id = await queue.addJob({ jobType: 'work', payload: {}, maxAttempts: 1 });
    processor.startInBackground();
    await started.promise;
    processor.stop(); // the job is not claimed again by this processor
    clock.advance(11 * 60_000);
    // Out of attempts: reclaim fails the job for good.
    expect(await queue.reclaimStuckJobs(10)).toBe(1);
    await waitFor(() => processor.stats().abandoned === 1, { timeoutMs: 10_000, what: 'the run to be given up' });
    release.resolve();
    await waitFor(() => processor.stats().abandoned === 0, {
      timeoutMs: 10_000,
      what: 'the abandoned handler to return',
    });
    await processor.stopAndDrain();
    expect(await queue.getJob(id)).toMatchObject({ status: 'failed', failureReason: 'timeout', output: null });
    expect(completed).toEqual([]);
    expect(failed).toEqual([]);
  });
});
