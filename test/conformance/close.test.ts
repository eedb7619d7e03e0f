/**
 * Closing a queue: close() stops and drains what the queue created, with a bounded wait, and
 * then refuses every operation with a QueueClosedError. Background loops report an error that
 * repeats every interval once, not once per interval.
 */
import { expect, it, vi } from 'vitest';
import { QueueClosedError, ValidationError } from '../../src/errors.js';
import { forEachBackend } from '../helpers/backends.js';
import { deferred, ownedQueue, unreachableQueue } from './processing-support.js';
import { sleep, waitFor } from '../helpers/wait.js';

forEachBackend('closing a queue', (ctx) => {
  it('stops the processors and supervisors created from it and drains running handlers', async () => {
    const queue = ownedQueue(ctx);
    const started = deferred();
    const release = deferred();
    const processor = queue.createProcessor(
      {
        work: async () => {
          started.resolve();
          await release.promise;
          return 'drained';
        },
      },
      { pollInterval: 50 },
    );
    const supervisor = queue.createSupervisor({ intervalMs: 50 });
    processor.startInBackground();
    supervisor.startInBackground();
    const id = await queue.addJob({ jobType: 'work', payload: {} });
    await started.promise;
    const closed = queue.close();
    expect(processor.isRunning()).toBe(false);
    expect(supervisor.isRunning()).toBe(false);
    release.resolve();
    await closed;
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'completed', output: 'drained' });
  });

  it('waits at most timeoutMs for a handler that never ends', async () => {
    const queue = ownedQueue(ctx);
    const started = deferred();
    const processor = queue.createProcessor({
      work: async () => {
        started.resolve();
        await new Promise(() => {});
      },
    });
    processor.startInBackground();
    const id = await queue.addJob({ jobType: 'work', payload: {} });
    await started.promise;
    const outcome = await Promise.race([
      queue.close({ timeoutMs: 100 }).then(() => 'closed'),
      sleep(20_000).then(() => 'still open'),
    ]);
    expect(outcome).toBe('closed');
    expect(processor.isRunning()).toBe(false);
    // Left to reclaim: the job stays processing.
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'processing' });
  });

  it('refuses every operation afterwards with a QueueClosedError', async () => {
    const queue = ownedQueue(ctx);
    await queue.addJob({ jobType: 'work', payload: {} });
    await queue.close();
    await expect(queue.addJob({ jobType: 'work', payload: {} })).rejects.toThrow(QueueClosedError);
    // Each refusal names the call the program made, not the store call behind it.
    await expect(queue.addJob({ jobType: 'work', payload: {} })).rejects.toThrow('queue.addJob() cannot run');
    await expect(queue.cancelJob(1)).rejects.toThrow('queue.cancelJob() cannot run');
    await expect(queue.getJob(1)).rejects.toThrow(QueueClosedError);
    await expect(queue.getJobsByStatus('pending')).rejects.toMatchObject({ code: 'QUEUE_CLOSED' });
    await expect(queue.reclaimStuckJobs()).rejects.toThrow(QueueClosedError);
    expect(() => queue.createProcessor({})).toThrow(QueueClosedError);
    expect(() => queue.createProcessor({})).toThrow('queue.createProcessor() cannot run');
    expect(() => queue.createSupervisor()).toThrow(QueueClosedError);
    // A second close is the same close.
    await expect(queue.close()).resolves.toBeUndefined();
  });

  it('rejects an invalid close timeout with a ValidationError naming the field', async () => {
    expect(() => ctx.queue.close({ timeoutMs: -1 })).toThrow(ValidationError);
    expect(() => ctx.queue.close({ timeoutMs: Number.NaN })).toThrow('`timeoutMs`');
  });

  it('reports a claim failure that repeats every poll once', async () => {
    const queue = unreachableQueue(ctx);
    const onError: Error[] = [];
    const events: Error[] = [];
    queue.on('error', (e) => events.push(e));
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const processor = queue.createProcessor(
        { work: async () => {} },
        { pollInterval: 10, verbose: true, onError: (e) => onError.push(e) },
      );
      processor.startInBackground();
      // Verbose mode logs each repeat that was not reported.
      const repeats = () =>
        log.mock.calls.filter((c) => String(c[0]).includes('claiming jobs failed') && String(c[0]).includes('(again)'));
      await waitFor(() => repeats().length >= 2, { timeoutMs: 10_000, what: 'two more failed claims' });
      // Once per background task: the claim, and the cron enqueue that precedes each claim.
      expect(onError.map((e) => e.message.split(':')[0]).sort()).toEqual([
        'claiming jobs failed',
        'enqueueing due cron jobs failed',
      ]);
      expect(events).toEqual(onError);
    } finally {
      await queue.close({ timeoutMs: 1000 });
      log.mockRestore();
    }
  });

  it('reports a supervisor task failure that repeats every interval once, as one console line per cause by default', async () => {
    const queue = unreachableQueue(ctx);
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const supervisor = queue.createSupervisor({
        intervalMs: 10,
        verbose: true,
        cleanupJobsDaysToKeep: 0,
        cleanupEventsDaysToKeep: 0,
        expireTimedOutTokens: false,
      });
      supervisor.startInBackground();
      const runs = () => log.mock.calls.filter((c) => String(c[0]).includes('supervisor run')).length;
      await waitFor(() => runs() >= 3, { timeoutMs: 10_000, what: 'three supervisor runs' });
      // Once per cause, however many runs: the reclaim fails for the store being unreachable,
      // and so does the trim of the throughput counters (which always runs): one line.
      expect(consoleError).toHaveBeenCalledTimes(1);
      const lines = consoleError.mock.calls.map((args) => args.join(' '));
      expect(lines[0]).toMatch(/^\[queuedev\] supervisor: reclaiming stuck jobs failed: /);
      // A message, not an Error with its stack trace.
      for (const args of consoleError.mock.calls) {
        expect(args.every((a) => typeof a === 'string' && !a.includes('\n'))).toBe(true);
      }
    } finally {
      await queue.close({ timeoutMs: 1000 });
      consoleError.mockRestore();
      log.mockRestore();
    }
  });
});
