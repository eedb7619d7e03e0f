/**
 * Failures recorded in batches (Backend.failJobs): handlers that fail together are written with
 * one call, as completions are. One call may hold failures with a retry to come, final ones
 * with dead letters and cascades, and failures of jobs that are no longer the caller's; each
 * gets its own result, in order, and each job ends exactly as a failure alone would leave it.
 */
import { expect, it, vi } from 'vitest';
import type { FailInput } from '../../src/backend.js';
import { backendOf } from '../../src/queue.js';
import { forEachBackend, ManualClock } from '../helpers/backends.js';

forEachBackend('failure batches', (ctx) => {
  it('records the failures of handlers that fail together with one call', async () => {
    const queue = ctx.makeQueue();
    const backend = backendOf(queue);
    const failJobs = vi.spyOn(backend, 'failJobs');
    const ids = await queue.addJobs(
      Array.from({ length: 10 }, (_, n) => ({ jobType: 'flaky', payload: { n }, maxAttempts: n % 2 === 0 ? 1 : 3 })),
    );
    const failed: { id: number; willRetry: boolean }[] = [];
    queue.on('job:failed', (e) => failed.push({ id: e.jobId, willRetry: e.willRetry }));
    const processor = queue.createProcessor(
      { flaky: () => Promise.reject(new Error('downstream is down')) },
      { batchSize: 10, concurrency: 10 },
    );
    expect(await processor.start()).toBe(10);

    expect(failJobs).toHaveBeenCalledTimes(1);
    expect(failJobs.mock.calls[0]![0].map((f) => f.jobId).sort((a, b) => a - b)).toEqual(ids);
    expect(failed.sort((a, b) => a.id - b.id)).toEqual(ids.map((id, n) => ({ id, willRetry: n % 2 === 1 })));
    const jobs = await Promise.all(ids.map((id) => queue.getJob(id)));
    expect(jobs.map((j) => [j?.status, j?.nextAttemptAt !== null, j?.errorHistory.map((e) => e.message)])).toEqual(
      ids.map((_, n) => ['failed', n % 2 === 1, ['downstream is down']]),
    );
  });

  it('gives each failure of a mixed call its own result: retry, dead letter, cascade, not ours', async () => {
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    const queue = ctx.makeQueue({ clock });
    const backend = backendOf(queue);
    const [a, d, f, g, routed] = await queue.addJobs([
      { jobType: 'work', payload: { n: 'a' }, maxAttempts: 1 },
      { jobType: 'work', payload: { n: 'd' }, maxAttempts: 1 },
      { jobType: 'work', payload: { n: 'f' } },
      { jobType: 'work', payload: { n: 'g' } },
      { jobType: 'work', payload: { n: 'routed' }, maxAttempts: 1, deadLetterJobType: 'work.dead' },
    ]);
    // a <- b <- c (a chain of dependents) and d <- e.
    const b = await queue.addJob({ jobType: 'child', payload: {}, dependsOn: { jobIds: [a!] } });
    const c = await queue.addJob({ jobType: 'child', payload: {}, dependsOn: { jobIds: [b] } });
    const e = await queue.addJob({ jobType: 'child', payload: {}, dependsOn: { jobIds: [d!] } });
    const claimed = await backend.claimJobs({ workerId: 'w', batchSize: 10, jobTypes: ['work'], now: clock.now() });
    expect(claimed).toHaveLength(5);

    const retryAt = new Date(clock.now().getTime() + 60_000);
    const failure = (jobId: number, retry: Date | null, workerId = 'w'): FailInput => ({
      jobId,
      workerId,
      message: `job ${jobId} failed`,
      reason: 'handler_error',
      retryAt: retry,
    });
    const results = await backend.failJobs(
      [
        failure(d!, null),
        failure(f!, retryAt),
        failure(g!, retryAt, 'someone else'),
        failure(routed!, null),
        failure(a!, null),
      ],
      clock.now(),
    );

    expect(results[0]).toEqual({ deadLetterJobId: null, cascaded: [{ jobId: e, cascadeFrom: d }] });
    expect(results[1]).toEqual({ deadLetterJobId: null, cascaded: [] });
    expect(results[2]).toBeNull();
    expect(results[3]).toMatchObject({ cascaded: [] });
    const deadLetter = results[3]!.deadLetterJobId;
    expect(deadLetter).toEqual(expect.any(Number));
    expect(results[4]).toEqual({
      deadLetterJobId: null,
      cascaded: [
        { jobId: b, cascadeFrom: a },
        { jobId: c, cascadeFrom: b },
      ],
    });

    const status = async (id: number) => (await queue.getJob(id))?.status;
    expect(await Promise.all([a!, d!, routed!].map(status))).toEqual(['failed', 'failed', 'failed']);
    expect(await queue.getJob(f!)).toMatchObject({
      status: 'failed',
      nextAttemptAt: retryAt,
      errorHistory: [{ message: `job ${f} failed` }],
    });
    expect(await queue.getJob(g!)).toMatchObject({ status: 'processing', errorHistory: [] });
    expect(await Promise.all([b, c, e].map(status))).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(await queue.getJob(routed!)).toMatchObject({ deadLetterJobId: deadLetter });
    expect(await queue.getJob(deadLetter!)).toMatchObject({
      jobType: 'work.dead',
      status: 'pending',
      payload: { originalJob: { id: routed }, originalPayload: { n: 'routed' } },
    });
    // One `failed` event each, with what the failure said.
    for (const [id, willRetry] of [
      [a!, false],
      [f!, true],
      [routed!, false],
    ] as const) {
      const events = (await queue.getJobEvents(id)).filter((ev) => ev.eventType === 'failed');
      expect(events, `job ${id}`).toMatchObject([{ metadata: { message: `job ${id} failed`, willRetry } }]);
    }
    expect((await queue.getJobEvents(g!)).filter((ev) => ev.eventType === 'failed')).toEqual([]);
  });
});
