/**
 * triggerCronJob (SPEC §4.4): one job of a schedule enqueued now, atomically as a due slot is,
 * under the same overlap rule, also for a paused schedule, leaving nextRunAt (and so the
 * regular runs) alone. Time comes from a ManualClock.
 */
import { expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../../src/errors.js';
import { backendOf } from '../../src/queue.js';
import type { CronJobOptions } from '../../src/types.js';
import { ManualClock, forEachBackend } from '../helpers/backends.js';
import { expectFailure } from './assertions.js';
import { claimJob, completeJob } from './job-states.js';

const T0 = new Date('2030-01-01T00:00:00Z');
const at = (iso: string) => new Date(iso);

forEachBackend('triggerCronJob (§4.4)', (ctx) => {
  function setup() {
    const clock = new ManualClock(T0);
    return { clock, queue: ctx.makeQueue({ clock }) };
  }

  function schedule(overrides: Partial<CronJobOptions> = {}): CronJobOptions {
    return {
      scheduleName: 'hourly',
      cronExpression: '0 * * * *',
      jobType: 'report',
      payload: { kind: 'hourly' },
      ...overrides,
    };
  }

  it('enqueues one job with the schedule options now, records it as the last job, emits job:added, keeps nextRunAt', async () => {
    const { clock, queue } = setup();
    const id = await queue.addCronJob(schedule({ priority: 7, tags: ['reports'], maxAttempts: 2 }));
    const seen: unknown[] = [];
    queue.on('job:added', (e) => seen.push(e));
    clock.set(at('2030-01-01T00:20:00Z'));

    const jobId = await queue.triggerCronJob(id);

    expect(jobId).toEqual(expect.any(Number));
    expect(await queue.getJob(jobId!)).toMatchObject({
      jobType: 'report',
      payload: { kind: 'hourly' },
      status: 'pending',
      priority: 7,
      tags: ['reports'],
      maxAttempts: 2,
      runAt: at('2030-01-01T00:20:00Z'),
    });
    expect(seen).toEqual([{ jobId, jobType: 'report' }]);
    const after = await queue.getCronJob(id);
    expect(after).toMatchObject({
      lastJobId: jobId,
      lastEnqueuedAt: at('2030-01-01T00:20:00Z'),
      nextRunAt: at('2030-01-01T01:00:00Z'),
      status: 'active',
    });
  });

  it('the regular run still happens at nextRunAt once the triggered job has finished', async () => {
    const { clock, queue } = setup();
    const id = await queue.addCronJob(schedule());
    clock.set(at('2030-01-01T00:20:00Z'));
    const triggered = await queue.triggerCronJob(id);
    await completeJob(queue, triggered!);

    clock.set(at('2030-01-01T01:00:00Z'));
    expect(await queue.enqueueDueCronJobs()).toBe(1);
    const s = (await queue.getCronJob(id))!;
    expect(s.lastJobId).not.toBe(triggered);
    expect(s.nextRunAt).toEqual(at('2030-01-01T02:00:00Z'));
    expect(await queue.getJobs()).toHaveLength(2);
  });

  it('allowOverlap false: refused (null, nothing written) while the last job is active; a regular slot then is skipped too', async () => {
    const { clock, queue } = setup();
    const id = await queue.addCronJob(schedule());
    const first = await queue.triggerCronJob(id);
    const before = await queue.getCronJob(id);
    clock.set(at('2030-01-01T00:10:00Z')); // a write now would move updatedAt

    expect(await queue.triggerCronJob(id)).toBeNull(); // first is pending
    await claimJob(queue, first!);
    expect(await queue.triggerCronJob(id)).toBeNull(); // first is processing
    expect(await queue.getJobs()).toHaveLength(1);
    expect(await queue.getCronJob(id)).toEqual(before);

    // The regular slot follows the same rule: it is spent without a job.
    clock.set(at('2030-01-01T01:00:00Z'));
    expect(await queue.enqueueDueCronJobs()).toBe(0);
    expect((await queue.getCronJob(id))!.nextRunAt).toEqual(at('2030-01-01T02:00:00Z'));

    await backendOf(queue).completeJobs([{ jobId: first!, workerId: 'conformance-worker' }], clock.now());
    const second = await queue.triggerCronJob(id);
    expect(second).not.toBeNull();
    expect(second).not.toBe(first);
    expect((await queue.getCronJob(id))!.lastJobId).toBe(second);
  });

  it('allowOverlap true: enqueues while the last job is still active', async () => {
    const { queue } = setup();
    const id = await queue.addCronJob(schedule({ allowOverlap: true }));
    const first = await queue.triggerCronJob(id);
    await claimJob(queue, first!);
    const second = await queue.triggerCronJob(id);
    expect(second).not.toBeNull();
    expect(await queue.getJobs()).toHaveLength(2);
  });

  it('concurrent triggers with allowOverlap false enqueue exactly one job', async () => {
    const { queue } = setup();
    const id = await queue.addCronJob(schedule());
    const results = await Promise.all(Array.from({ length: 6 }, () => queue.triggerCronJob(id)));
    const enqueued = results.filter((r) => r !== null);
    expect(enqueued).toHaveLength(1);
    expect(await queue.getJobs()).toHaveLength(1);
    expect((await queue.getCronJob(id))!.lastJobId).toBe(enqueued[0]);
  });

  it('a paused schedule can be triggered; it stays paused and automatic enqueueing still skips it', async () => {
    const { clock, queue } = setup();
    const id = await queue.addCronJob(schedule());
    await queue.pauseCronJob(id);
    const jobId = await queue.triggerCronJob(id);
    expect(jobId).not.toBeNull();
    await completeJob(queue, jobId!);
    expect((await queue.getCronJob(id))!).toMatchObject({ status: 'paused', lastJobId: jobId });

    clock.set(at('2030-01-01T05:00:00Z'));
    expect(await queue.enqueueDueCronJobs()).toBe(0);
    expect(await queue.getJobs()).toHaveLength(1);
  });

  it('an unknown id throws NotFoundError; an invalid id a ValidationError naming scheduleId; nothing is written', async () => {
    const { queue } = setup();
    await queue.addCronJob(schedule());
    await expect(queue.triggerCronJob(987_654)).rejects.toBeInstanceOf(NotFoundError);
    for (const bad of [0, -1, 1.5, '3' as unknown as number]) {
      await expectFailure(queue.triggerCronJob(bad), ValidationError, { field: 'scheduleId' });
    }
    expect(await queue.getJobs()).toEqual([]);
  });
});
