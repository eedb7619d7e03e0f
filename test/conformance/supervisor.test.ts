/**
 * The supervisor (SPEC §4.9, §2.10): reclaim, cleanup of jobs and events, switches, the
 * background loop, and error reporting.
 */
import { afterEach, expect, it, onTestFinished, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { ManualClock, forEachBackend } from '../helpers/backends.js';
import { DAY_MS, claimJob, completeJob } from './job-states.js';
import { trackRunners, unreachableQueue } from './processing-support.js';
import { waitFor } from '../helpers/wait.js';

const MINUTE = 60_000;

forEachBackend('supervisor (§4.9)', (ctx) => {
  const track = trackRunners();
  afterEach(() => {
    vi.restoreAllMocks();
  });

  function setup() {
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    return { clock, queue: ctx.makeQueue({ clock }) };
  }

  it('reclaims jobs processing longer than stuckJobsTimeoutMinutes', async () => {
    const { clock, queue } = setup();
    const id = await queue.addJob({ jobType: 'work', payload: {} });
    await claimJob(queue, id);
    const supervisor = queue.createSupervisor({ stuckJobsTimeoutMinutes: 10 });
    clock.advance(9 * MINUTE);
    expect((await supervisor.start()).reclaimedJobs).toBe(0);
    clock.advance(2 * MINUTE);
    expect(await supervisor.start()).toEqual({
      reclaimedJobs: 1,
      cleanedUpJobs: 0,
      cleanedUpEvents: 0,
      expiredTokens: 0,
    });
    expect((await queue.getJob(id))?.status).toBe('pending');
  });

  it('skips reclaim when reclaimStuckJobs is false', async () => {
    const { clock, queue } = setup();
    const id = await queue.addJob({ jobType: 'work', payload: {} });
    await claimJob(queue, id);
    clock.advance(60 * MINUTE);
    expect((await queue.createSupervisor({ reclaimStuckJobs: false }).start()).reclaimedJobs).toBe(0);
    expect((await queue.getJob(id))?.status).toBe('processing');
  });

  it('removes finished jobs and old events past their retention, in batches', async () => {
    const { clock, queue } = setup();
    const done = await queue.addJobs([1, 2, 3].map((n) => ({ jobType: `work${n}`, payload: {} })));
    for (const id of done) await completeJob(queue, id);
    const waiting = await queue.addJob({ jobType: 'later', payload: {}, runAt: new Date('2031-01-01T00:00:00Z') });
    const supervisor = queue.createSupervisor({
      cleanupJobsDaysToKeep: 30,
      cleanupEventsDaysToKeep: 30,
      cleanupBatchSize: 2,
    });
    clock.advance(29 * DAY_MS);
    expect(await supervisor.start()).toMatchObject({ cleanedUpJobs: 0, cleanedUpEvents: 0 });
    clock.advance(2 * DAY_MS);
    // The completed jobs go with their events; the pending job stays, its old `added` event goes.
    expect(await supervisor.start()).toEqual({
      reclaimedJobs: 0,
      cleanedUpJobs: 3,
      cleanedUpEvents: 1,
      expiredTokens: 0,
    });
    for (const id of done) expect(await queue.getJob(id)).toBeNull();
    expect((await queue.getJob(waiting))?.status).toBe('pending');
    expect(await queue.getJobEvents(waiting)).toEqual([]);
  });

  it('disables a cleanup task when its days to keep is 0', async () => {
    const { clock, queue } = setup();
    const id = await queue.addJob({ jobType: 'work', payload: {} });
    await completeJob(queue, id);
    clock.advance(400 * DAY_MS);
    const result = await queue.createSupervisor({ cleanupJobsDaysToKeep: 0, cleanupEventsDaysToKeep: 0 }).start();
    expect(result).toEqual({ reclaimedJobs: 0, cleanedUpJobs: 0, cleanedUpEvents: 0, expiredTokens: 0 });
    expect((await queue.getJob(id))?.status).toBe('completed');
    expect((await queue.getJobEvents(id)).length).toBeGreaterThan(0);
  });

  it('runs in the background every intervalMs until stopped', async () => {
    const { clock, queue } = setup();
    const supervisor = track(queue.createSupervisor({ intervalMs: 50, stuckJobsTimeoutMinutes: 1 }));
    expect(supervisor.isRunning()).toBe(false);
    supervisor.startInBackground();
    expect(supervisor.isRunning()).toBe(true);
    for (let round = 0; round < 2; round++) {
      const id = await queue.addJob({ jobType: `work${round}`, payload: {} });
      await claimJob(queue, id);
      clock.advance(2 * MINUTE);
      await waitFor(async () => (await queue.getJob(id))?.status === 'pending', {
        timeoutMs: 5000,
        what: `reclaim in round ${round}`,
      });
    }
    await supervisor.stopAndDrain();
    expect(supervisor.isRunning()).toBe(false);
    const id = await queue.addJob({ jobType: 'after-stop', payload: {} });
    await claimJob(queue, id);
    clock.advance(2 * MINUTE);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await queue.getJob(id))?.status).toBe('processing');
  });

  it('reports a failing task to onError and the error event, runs the other tasks, and resolves', async () => {
    const queue = unreachableQueue(ctx); // every store call fails for real
    onTestFinished(() => queue.close());
    const onError: Error[] = [];
    const errorEvents: Error[] = [];
    queue.on('error', (e) => errorEvents.push(e));
    const result = await queue.createSupervisor({ onError: (e) => onError.push(e) }).start();
    expect(result).toEqual({ reclaimedJobs: 0, cleanedUpJobs: 0, cleanedUpEvents: 0, expiredTokens: 0 });
    expect(onError.map((e) => e.message)).toEqual([
      expect.stringContaining('reclaiming stuck jobs'),
      expect.stringContaining('cleaning up old jobs'),
      expect.stringContaining('cleaning up old job events'),
      expect.stringContaining('expiring timed-out tokens'),
      expect.stringContaining('trimming throughput counters'),
    ]);
    expect(errorEvents).toEqual(onError);
  });

  it('writes errors to the console when no onError is given', async () => {
    const queue = unreachableQueue(ctx);
    onTestFinished(() => queue.close());
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    await queue
      .createSupervisor({ cleanupJobsDaysToKeep: 0, cleanupEventsDaysToKeep: 0, expireTimedOutTokens: false })
      .start();
    // The reclaim, and the trim of the throughput counters, which always runs: one
    // `[queuedev] ...` line each (the queue has no `logger`).
    expect(consoleError).toHaveBeenCalledTimes(2);
    expect(consoleError.mock.calls[0]).toEqual([
      expect.stringMatching(/^\[queuedev\] supervisor: reclaiming stuck jobs failed: /),
    ]);
    expect(consoleError.mock.calls[1]).toEqual([
      expect.stringMatching(/^\[queuedev\] supervisor: trimming throughput counters failed: /),
    ]);
  });

  it('rejects invalid options with a ConfigError naming the field', () => {
    const cases: [object, string][] = [
      [{ intervalMs: 0 }, '`intervalMs`'],
      [{ stuckJobsTimeoutMinutes: -1 }, '`stuckJobsTimeoutMinutes`'],
      [{ cleanupJobsDaysToKeep: Number.NaN }, '`cleanupJobsDaysToKeep`'],
      [{ cleanupEventsDaysToKeep: '30' }, '`cleanupEventsDaysToKeep`'],
      [{ cleanupBatchSize: 1.5 }, '`cleanupBatchSize`'],
      [{ reclaimStuckJobs: 'yes' }, '`reclaimStuckJobs`'],
      [{ expireTimedOutTokens: 1 }, '`expireTimedOutTokens`'],
      [{ onError: true }, '`onError`'],
      [{ interval: 5 }, '`interval`'],
    ];
    for (const [options, field] of cases) {
      expect(() => ctx.queue.createSupervisor(options as never), JSON.stringify(options)).toThrow(ConfigError);
      expect(() => ctx.queue.createSupervisor(options as never)).toThrow(field);
    }
  });
});
