/**
 * Retries, exhausted failures and dead letters as the processor drives them (SPEC §3, §4.5,
 * §2.5; DETAILS "Retries, failures, reclaim"). Time is a ManualClock, so retry times are exact.
 */
import { expect, it } from 'vitest';
import { ManualClock, forEachBackend } from '../helpers/backends.js';

forEachBackend('retries (§4.5)', (ctx) => {
  const fail = async () => Promise.reject(new Error('temporary outage'));

  function setup() {
    const clock = new ManualClock(new Date('2030-01-01T00:00:00Z'));
    const queue = ctx.makeQueue({ clock });
    const willRetry: boolean[] = [];
    queue.on('job:failed', (e) => willRetry.push(e.willRetry));
    return { clock, queue, willRetry };
  }

  it('leaves a failed job with attempts left as failed with nextAttemptAt, and retries it after the delay', async () => {
    const { clock, queue, willRetry } = setup();
    const id = await queue.addJob({
      jobType: 'work',
      payload: {},
      maxAttempts: 3,
      retryDelay: 10,
      retryBackoff: false,
    });
    let calls = 0;
    const processor = queue.createProcessor({ work: async () => (++calls === 1 ? fail() : 'ok') });
    expect(await processor.start()).toBe(1);
    const failed = await queue.getJob(id);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1, failureReason: 'handler_error' });
    expect(failed?.nextAttemptAt?.toISOString()).toBe('2030-01-01T00:00:10.000Z');
    expect(failed?.errorHistory.map((e) => e.message)).toEqual(['temporary outage']);
    expect(willRetry).toEqual([true]);

    clock.advance(9_999);
    expect(await processor.start()).toBe(0);
    clock.advance(1);
    expect(await processor.start()).toBe(1);
    expect(await queue.getJob(id)).toMatchObject({ status: 'completed', attempts: 2, output: 'ok' });
  });

  it('uses the legacy 2^attempts minutes when no retry option is set', async () => {
    const { queue } = setup();
    const id = await queue.addJob({ jobType: 'work', payload: {} });
    await queue.createProcessor({ work: fail }).start();
    expect((await queue.getJob(id))?.nextAttemptAt?.toISOString()).toBe('2030-01-01T00:02:00.000Z');
  });

  it('applies exponential backoff with jitter, capped by retryDelayMax', async () => {
    const { clock, queue } = setup();
    const start = clock.now().getTime();
    const a = await queue.addJob({ jobType: 'work', payload: {}, retryDelay: 10 });
    const b = await queue.addJob({ jobType: 'work', payload: {}, retryDelay: 100, retryDelayMax: 5 });
    await queue.createProcessor({ work: fail }).start();
    // attempt 1: 10 s * 2^1 * [0.5, 1.0] = 10..20 s
    const delayA = (await queue.getJob(a))!.nextAttemptAt!.getTime() - start;
    expect(delayA).toBeGreaterThanOrEqual(10_000);
    expect(delayA).toBeLessThanOrEqual(20_000);
    expect((await queue.getJob(b))!.nextAttemptAt!.getTime() - start).toBe(5000);
  });

  it('sets willRetry exactly while attempts remain, then ends failed with nextAttemptAt null', async () => {
    const { clock, queue, willRetry } = setup();
    const id = await queue.addJob({ jobType: 'work', payload: {}, maxAttempts: 2, retryDelay: 1, retryBackoff: false });
    const processor = queue.createProcessor({ work: fail });
    expect(await processor.start()).toBe(1);
    clock.advance(1000);
    expect(await processor.start()).toBe(1);
    clock.advance(3_600_000);
    expect(await processor.start()).toBe(0);
    const job = await queue.getJob(id);
    expect(job).toMatchObject({ status: 'failed', attempts: 2, nextAttemptAt: null, failureReason: 'handler_error' });
    expect(job?.errorHistory).toHaveLength(2);
    expect(willRetry).toEqual([true, false]);
    const failedEvents = (await queue.getJobEvents(id)).filter((e) => e.eventType === 'failed');
    expect(failedEvents.map((e) => (e.metadata as { willRetry: boolean }).willRetry)).toEqual([true, false]);
  });

  it('routes an exhausted job to its dead-letter type with the envelope, in the same operation', async () => {
    const { clock, queue } = setup();
    const id = await queue.addJob({
      jobType: 'charge',
      payload: { invoice: 7 },
      maxAttempts: 1,
      deadLetterJobType: 'charge.dead',
    });
    const envelopes: unknown[] = [];
    expect(await queue.createProcessor({ charge: fail }).start()).toBe(1);
    const source = await queue.getJob(id);
    expect(source?.status).toBe('failed');
    expect(source?.deadLetteredAt?.getTime()).toBe(clock.now().getTime());
    const deadId = source!.deadLetterJobId!;
    expect(deadId).toBeGreaterThan(id);
    // The failed event written with the failure already names the dead-letter job.
    const failedEvent = (await queue.getJobEvents(id)).find((e) => e.eventType === 'failed');
    expect(failedEvent?.metadata).toMatchObject({ deadLetterJobId: deadId, willRetry: false });

    const dead = await queue.getJob(deadId);
    expect(dead).toMatchObject({ jobType: 'charge.dead', status: 'pending' });
    expect(dead?.payload).toMatchObject({
      originalJob: { id, jobType: 'charge', attempts: 1, maxAttempts: 1 },
      originalPayload: { invoice: 7 },
      failure: { message: 'temporary outage', reason: 'handler_error' },
    });
    const failedAt = (dead?.payload as { failure: { failedAt: string } }).failure.failedAt;
    expect(new Date(failedAt).getTime()).toBe(clock.now().getTime());

    // The dead-letter job is an ordinary job a processor can run.
    await queue.createProcessor({ 'charge.dead': async (envelope: unknown) => void envelopes.push(envelope) }).start();
    expect(envelopes).toEqual([dead?.payload]);
  });

  it('does not dead-letter a job that still has attempts left', async () => {
    const { queue } = setup();
    const id = await queue.addJob({ jobType: 'charge', payload: {}, maxAttempts: 2, deadLetterJobType: 'charge.dead' });
    await queue.createProcessor({ charge: fail }).start();
    const job = await queue.getJob(id);
    expect(job?.deadLetterJobId).toBeNull();
    expect(await queue.getJobs({ jobType: 'charge.dead' })).toEqual([]);
  });

  it('retryJob gives an exhausted job a fresh attempt budget, and it runs again', async () => {
    const { queue } = setup();
    const id = await queue.addJob({ jobType: 'work', payload: {}, maxAttempts: 1 });
    let succeed = false;
    const processor = queue.createProcessor({ work: async () => (succeed ? 'ok' : fail()) });
    await processor.start();
    expect(await queue.getJob(id)).toMatchObject({ status: 'failed', attempts: 1, nextAttemptAt: null });
    await queue.retryJob(id);
    expect(await queue.getJob(id)).toMatchObject({ status: 'pending', attempts: 0 });
    succeed = true;
    expect(await processor.start()).toBe(1);
    const job = await queue.getJob(id);
    expect(job).toMatchObject({ status: 'completed', attempts: 1 });
    expect(job?.errorHistory).toHaveLength(1);
  });

  it('retries a job without a handler while attempts remain, keeping reason no_handler', async () => {
    const { clock, queue } = setup();
    const id = await queue.addJob({
      jobType: 'nobody',
      payload: {},
      maxAttempts: 2,
      retryDelay: 1,
      retryBackoff: false,
    });
    const processor = queue.createProcessor({}, { jobType: 'nobody' });
    await processor.start();
    expect(await queue.getJob(id)).toMatchObject({ status: 'failed', failureReason: 'no_handler' });
    clock.advance(1000);
    expect(await processor.start()).toBe(1);
    expect(await queue.getJob(id)).toMatchObject({
      status: 'failed',
      attempts: 2,
      nextAttemptAt: null,
      failureReason: 'no_handler',
    });
  });
});
