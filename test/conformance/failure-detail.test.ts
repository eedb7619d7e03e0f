/**
 * What a failure leaves on the job (SPEC §3; DETAILS "Retries, failures, reclaim"): the stack
 * trace of a handler's error kept, bounded, with its error history entry; and the lock fields
 * (`lockedBy`, `lockedAt`) set only while the job is processing.
 */
import { expect, it } from 'vitest';
import { MAX_FAILURE_STACK_LENGTH } from '../../src/failure.js';
import type { JobRecord } from '../../src/types.js';
import { ManualClock, forEachBackend } from '../helpers/backends.js';
import { claimJob } from './job-states.js';

const MINUTE = 60_000;

forEachBackend('failure detail and locks (§3)', (ctx) => {
  function setup() {
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    return { clock, queue: ctx.makeQueue({ clock }) };
  }

  function expectUnlocked(job: JobRecord | null): void {
    expect(job).toMatchObject({ lockedBy: null, locked_by: null, lockedAt: null, locked_at: null });
  }

  it('keeps the stack trace of the error a handler threw with each error history entry', async () => {
    const { clock, queue } = setup();
    const id = await queue.addJob({ jobType: 'work', payload: {}, maxAttempts: 2, retryDelay: 1, retryBackoff: false });
    const processor = queue.createProcessor({
      work: async function chargeTheCard() {
        throw new RangeError('card declined');
      },
    });
    expect(await processor.start()).toBe(1);
    clock.advance(1000);
    expect(await processor.start()).toBe(1);
    const job = await queue.getJob(id);
    expect(job).toMatchObject({ status: 'failed', attempts: 2 });
    expect(job?.errorHistory).toHaveLength(2);
    for (const entry of job!.errorHistory) {
      expect(entry.message).toBe('card declined');
      expect(entry.stack).toMatch(/^RangeError: card declined\n/);
      expect(entry.stack).toContain('chargeTheCard');
      expect(entry.stack).toContain('failure-detail.test.ts');
    }
  });

  it('keeps the stack trace of an error thrown in a forceKillOnTimeout worker thread', async () => {
    const { queue } = setup();
    const id = await queue.addJob({ jobType: 'isolated', payload: {}, maxAttempts: 1, forceKillOnTimeout: true });
    await queue
      .createProcessor({
        isolated: async () => {
          throw new TypeError('bad input');
        },
      })
      .start();
    const entry = (await queue.getJob(id))?.errorHistory[0];
    expect(entry?.message).toBe('bad input');
    expect(entry?.stack).toMatch(/^TypeError: bad input\n\s+at /);
  });

  it('cuts a long stack trace to MAX_FAILURE_STACK_LENGTH with a marker, keeping its top', async () => {
    const { queue } = setup();
    const id = await queue.addJob({ jobType: 'work', payload: {}, maxAttempts: 1 });
    const long = `Error: deep\n${'    at frame (file.js:1:1)\n'.repeat(1000)}`;
    await queue
      .createProcessor({
        work: async () => {
          const error = new Error('deep');
          error.stack = long;
          throw error;
        },
      })
      .start();
    const stack = (await queue.getJob(id))?.errorHistory[0]?.stack;
    expect(stack).toHaveLength(MAX_FAILURE_STACK_LENGTH);
    expect(stack?.startsWith('Error: deep\n    at frame (file.js:1:1)\n')).toBe(true);
    expect(stack?.endsWith(` … [truncated from ${long.length} characters]`)).toBe(true);
  });

  it('keeps no stack for a thrown value that is not an Error, a missing handler or a timeout', async () => {
    const { queue } = setup();
    const thrown = await queue.addJob({ jobType: 'throws-string', payload: {}, maxAttempts: 1 });
    const orphan = await queue.addJob({ jobType: 'no-handler', payload: {}, maxAttempts: 1 });
    const slow = await queue.addJob({ jobType: 'slow', payload: {}, maxAttempts: 1, timeoutMs: 20 });
    await queue
      .createProcessor(
        {
          'throws-string': async () => {
            // eslint-disable-next-line @typescript-eslint/only-throw-error -- the case under test: a thrown non-Error
            throw 'plain text';
          },
          slow: (_payload, signal) => new Promise((resolve) => signal.addEventListener('abort', resolve)),
        },
        { onError: () => {}, jobType: ['throws-string', 'no-handler', 'slow'] },
      )
      .start();
    for (const [id, reason] of [
      [thrown, 'handler_error'],
      [orphan, 'no_handler'],
      [slow, 'timeout'],
    ] as const) {
      const job = await queue.getJob(id);
      expect(job).toMatchObject({ status: 'failed', failureReason: reason });
      expect(job?.errorHistory).toHaveLength(1);
      expect(job?.errorHistory[0]).not.toHaveProperty('stack');
    }
  });

  it('keeps no stack with the entry of a reclaim, and clears the lock of reclaimed jobs', async () => {
    const { clock, queue } = setup();
    const requeued = await queue.addJob({ jobType: 'requeued', payload: {}, maxAttempts: 2 });
    const exhausted = await queue.addJob({ jobType: 'exhausted', payload: {}, maxAttempts: 1 });
    await claimJob(queue, requeued);
    await claimJob(queue, exhausted);
    expect(await queue.getJob(exhausted)).toMatchObject({ status: 'processing', lockedBy: 'conformance-worker' });
    clock.advance(11 * MINUTE);
    expect(await queue.reclaimStuckJobs(10)).toBe(2);
    const back = await queue.getJob(requeued);
    expect(back?.status).toBe('pending');
    expectUnlocked(back);
    const failed = await queue.getJob(exhausted);
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'timeout' });
    expect(failed?.errorHistory[0]?.message).toContain('Reclaimed');
    expect(failed?.errorHistory[0]).not.toHaveProperty('stack');
    expectUnlocked(failed);
  });

  it('shows the lock only while a job is processing: cleared on completion, failure and retry', async () => {
    const { clock, queue } = setup();
    const done = await queue.addJob({ jobType: 'done', payload: {} });
    const retried = await queue.addJob({ jobType: 'flaky', payload: {}, maxAttempts: 2, retryDelay: 1 });
    const final = await queue.addJob({ jobType: 'broken', payload: {}, maxAttempts: 1 });
    const seen: (string | null)[] = [];
    const processor = queue.createProcessor(
      {
        done: async () => {
          seen.push((await queue.getJob(done))?.lockedBy ?? null);
        },
        flaky: async () => Promise.reject(new Error('flaky')),
        broken: async () => Promise.reject(new Error('broken')),
      },
      { workerId: 'lock-worker' },
    );
    expect(await processor.start()).toBe(3);
    expect(seen).toEqual(['lock-worker']);
    expect(await queue.getJob(done)).toMatchObject({ status: 'completed' });
    expectUnlocked(await queue.getJob(done));
    expect((await queue.getJob(retried))?.nextAttemptAt).not.toBeNull();
    expectUnlocked(await queue.getJob(retried));
    expect(await queue.getJob(final)).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expectUnlocked(await queue.getJob(final));
    await queue.retryJob(final);
    expect((await queue.getJob(final))?.status).toBe('pending');
    expectUnlocked(await queue.getJob(final));
    clock.advance(MINUTE);
    await processor.start();
    expect(await queue.getJob(retried)).toMatchObject({ status: 'failed', attempts: 2 });
    expectUnlocked(await queue.getJob(retried));
  });
});
