/**
 * Cron schedules (SPEC §2.9, §4.4; DETAILS "Cron schedule record"): the schedule operations,
 * validation, job options inherited by created jobs, overlap, missed periods, the processor's
 * enqueue-first rule and run times across DST changes. Time comes from a ManualClock, so every
 * slot is stepped through explicitly with enqueueDueCronJobs.
 */
import { describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../../src/errors.js';
import { backendOf } from '../../src/queue.js';
import type { CronJobOptions, CronScheduleRecord } from '../../src/types.js';
import { ManualClock, forEachBackend } from '../helpers/backends.js';
import { expectFailure } from './assertions.js';
import { claimJob, completeJob, failJob } from './job-states.js';
import { failOne } from '../helpers/fail.js';

const T0 = new Date('2030-01-01T00:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const at = (iso: string) => new Date(iso);

forEachBackend('cron schedules (§4.4)', (ctx) => {
  function setup(start: Date = T0) {
    const clock = new ManualClock(start);
    return { clock, queue: ctx.makeQueue({ clock }) };
  }

  function schedule(overrides: Partial<CronJobOptions> = {}): CronJobOptions {
    return {
      scheduleName: 'nightly',
      cronExpression: '*/5 * * * *',
      jobType: 'report',
      payload: { kind: 'daily' },
      ...overrides,
    };
  }

  it('addCronJob stores the schedule with its defaults; getCronJob and getCronJobByName read it', async () => {
    const { queue } = setup();
    const id = await queue.addCronJob(schedule());
    expect(id).toBeGreaterThan(0);
    const expected: CronScheduleRecord = {
      id,
      scheduleName: 'nightly',
      cronExpression: '*/5 * * * *',
      jobType: 'report',
      payload: { kind: 'daily' },
      timezone: 'UTC',
      allowOverlap: false,
      status: 'active',
      maxAttempts: 3,
      priority: 0,
      timeoutMs: null,
      tags: [],
      retryDelay: null,
      retryBackoff: null,
      retryDelayMax: null,
      lastEnqueuedAt: null,
      lastJobId: null,
      nextRunAt: at('2030-01-01T00:05:00Z'),
      createdAt: T0,
      updatedAt: T0,
    };
    expect(await queue.getCronJob(id)).toEqual(expected);
    expect(await queue.getCronJobByName('nightly')).toEqual(expected);
  });

  it('getCronJob and getCronJobByName return null for an unknown schedule', async () => {
    const { queue } = setup();
    await queue.addCronJob(schedule());
    expect(await queue.getCronJob(987_654)).toBeNull();
    expect(await queue.getCronJobByName('weekly')).toBeNull();
  });

  it('pause, resume and edit of an unknown schedule throw NotFoundError; remove does nothing', async () => {
    const { queue } = setup();
    const id = await queue.addCronJob(schedule());
    const before = await queue.getCronJob(id);
    await expect(queue.pauseCronJob(987_654)).rejects.toBeInstanceOf(NotFoundError);
    await expect(queue.resumeCronJob(987_654)).rejects.toBeInstanceOf(NotFoundError);
    await expect(queue.editCronJob(987_654, { priority: 5 })).rejects.toBeInstanceOf(NotFoundError);
    await expect(queue.removeCronJob(987_654)).resolves.toBeUndefined();
    expect(await queue.listCronJobs()).toEqual([before]);
  });

  it('nextRunAt is the first slot strictly after now, also when now is a slot', async () => {
    const { clock, queue } = setup(at('2030-01-01T00:04:59.999Z'));
    const a = await queue.addCronJob(schedule({ scheduleName: 'a' }));
    clock.set(at('2030-01-01T00:05:00Z'));
    const b = await queue.addCronJob(schedule({ scheduleName: 'b' }));
    expect((await queue.getCronJob(a))?.nextRunAt).toEqual(at('2030-01-01T00:05:00Z'));
    expect((await queue.getCronJob(b))?.nextRunAt).toEqual(at('2030-01-01T00:10:00Z'));
  });

  it('listCronJobs returns every schedule in id order, or those of one status', async () => {
    const { queue } = setup();
    const a = await queue.addCronJob(schedule({ scheduleName: 'a' }));
    const b = await queue.addCronJob(schedule({ scheduleName: 'b' }));
    const c = await queue.addCronJob(schedule({ scheduleName: 'c' }));
    await queue.pauseCronJob(b);
    expect((await queue.listCronJobs()).map((s) => [s.id, s.status])).toEqual([
      [a, 'active'],
      [b, 'paused'],
      [c, 'active'],
    ]);
    expect((await queue.listCronJobs('active')).map((s) => s.id)).toEqual([a, c]);
    expect((await queue.listCronJobs('paused')).map((s) => s.id)).toEqual([b]);
  });

  it('enqueueDueCronJobs enqueues a due schedule once and moves nextRunAt to the first slot after now', async () => {
    const { clock, queue } = setup();
    const id = await queue.addCronJob(schedule({ allowOverlap: true }));
    clock.set(at('2030-01-01T00:04:59Z'));
    expect(await queue.enqueueDueCronJobs()).toBe(0);
    expect(await queue.getJobs()).toEqual([]);

    clock.set(at('2030-01-01T00:05:00Z')); // exactly due
    expect(await queue.enqueueDueCronJobs()).toBe(1);
    expect(await queue.enqueueDueCronJobs()).toBe(0); // the slot is spent
    const jobs = await queue.getJobs();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({ jobType: 'report', payload: { kind: 'daily' }, status: 'pending' });
    expect(await queue.getCronJob(id)).toMatchObject({
      nextRunAt: at('2030-01-01T00:10:00Z'),
      lastJobId: jobs[0]!.id,
      lastEnqueuedAt: at('2030-01-01T00:05:00Z'),
    });
  });

  it('a missed period enqueues one job, not one per missed slot', async () => {
    const { clock, queue } = setup();
    const id = await queue.addCronJob(schedule({ cronExpression: '* * * * *', allowOverlap: true }));
    clock.set(at('2030-01-01T00:10:30Z')); // ten slots missed
    expect(await queue.enqueueDueCronJobs()).toBe(1);
    expect(await queue.enqueueDueCronJobs()).toBe(0);
    expect(await queue.getJobs()).toHaveLength(1);
    expect((await queue.getCronJob(id))?.nextRunAt).toEqual(at('2030-01-01T00:11:00Z'));
  });

  it('enqueues every due schedule in one call', async () => {
    const { clock, queue } = setup();
    await queue.addCronJob(schedule({ scheduleName: 'five', jobType: 'five' }));
    await queue.addCronJob(schedule({ scheduleName: 'minute', cronExpression: '* * * * *', jobType: 'minute' }));
    await queue.addCronJob(schedule({ scheduleName: 'hourly', cronExpression: '0 * * * *', jobType: 'hourly' }));
    clock.set(at('2030-01-01T00:05:00Z'));
    expect(await queue.enqueueDueCronJobs()).toBe(2);
    expect((await queue.getJobs()).map((j) => j.jobType).sort()).toEqual(['five', 'minute']);
  });

  it('created jobs inherit jobType, payload, maxAttempts, priority, timeoutMs, tags and retry options', async () => {
    const { clock, queue } = setup();
    const id = await queue.addCronJob(
      schedule({
        payload: { to: 'ops', n: [1, 2] },
        maxAttempts: 5,
        priority: 7,
        timeoutMs: 1234,
        tags: ['cron', 'reports'],
        retryDelay: 10,
        retryBackoff: true,
        retryDelayMax: 100,
      }),
    );
    expect(await queue.getCronJob(id)).toMatchObject({
      maxAttempts: 5,
      priority: 7,
      timeoutMs: 1234,
      tags: ['cron', 'reports'],
      retryDelay: 10,
      retryBackoff: true,
      retryDelayMax: 100,
    });
    clock.set(at('2030-01-01T00:05:00Z'));
    expect(await queue.enqueueDueCronJobs()).toBe(1);
    const [job] = await queue.getJobs();
    expect(job).toMatchObject({
      jobType: 'report',
      payload: { to: 'ops', n: [1, 2] },
      maxAttempts: 5,
      priority: 7,
      timeoutMs: 1234,
      tags: ['cron', 'reports'],
      retryDelay: 10,
      retryBackoff: true,
      retryDelayMax: 100,
      status: 'pending',
      attempts: 0,
    });
    expect(job!.runAt.getTime()).toBeLessThanOrEqual(clock.now().getTime());
    expect((await queue.getJobEvents(job!.id)).map((e) => e.eventType)).toEqual(['added']);
  });

  it('emits job:added for each job a schedule creates', async () => {
    const { clock, queue } = setup();
    const seen: unknown[] = [];
    queue.on('job:added', (e) => seen.push(e));
    await queue.addCronJob(schedule());
    clock.set(at('2030-01-01T00:05:00Z'));
    await queue.enqueueDueCronJobs();
    const [job] = await queue.getJobs();
    expect(seen).toEqual([{ jobId: job!.id, jobType: 'report' }]);
  });

  it('a paused schedule is skipped by enqueueDueCronJobs and by the processor; resume enqueues again', async () => {
    const { clock, queue } = setup();
    const id = await queue.addCronJob(schedule({ cronExpression: '0 * * * *' }));
    await queue.pauseCronJob(id);
    expect((await queue.getCronJob(id))?.status).toBe('paused');
    clock.set(at('2030-01-01T01:00:00Z'));
    expect(await queue.enqueueDueCronJobs()).toBe(0);
    let ran = 0;
    expect(
      await queue
        .createProcessor({
          report: async () => {
            ran++;
          },
        })
        .start(),
    ).toBe(0);
    expect(ran).toBe(0);
    expect(await queue.getJobs()).toEqual([]);

    clock.set(at('2030-01-01T01:30:00Z'));
    await queue.resumeCronJob(id);
    expect((await queue.getCronJob(id))?.status).toBe('active');
    clock.set(at('2030-01-01T02:00:00Z'));
    expect(
      await queue
        .createProcessor({
          report: async () => {
            ran++;
          },
        })
        .start(),
    ).toBe(1);
    expect(ran).toBe(1);
    expect(await queue.getJobs()).toHaveLength(1);
  });

  it('editCronJob recomputes nextRunAt when the expression changes', async () => {
    const { clock, queue } = setup();
    const id = await queue.addCronJob(schedule({ cronExpression: '0 * * * *' }));
    expect((await queue.getCronJob(id))?.nextRunAt).toEqual(at('2030-01-01T01:00:00Z'));
    clock.set(at('2030-01-01T00:10:00Z'));
    await queue.editCronJob(id, { cronExpression: '*/15 * * * *' });
    expect(await queue.getCronJob(id)).toMatchObject({
      cronExpression: '*/15 * * * *',
      nextRunAt: at('2030-01-01T00:15:00Z'),
      updatedAt: at('2030-01-01T00:10:00Z'),
      createdAt: T0,
    });
  });

  it('editCronJob recomputes nextRunAt when the time zone changes', async () => {
    const { clock, queue } = setup();
    const id = await queue.addCronJob(schedule({ cronExpression: '0 * * * *' }));
    clock.set(at('2030-01-01T00:10:00Z'));
    // Kolkata is UTC+05:30: its whole hours fall at half past in UTC.
    await queue.editCronJob(id, { timezone: 'Asia/Kolkata' });
    expect(await queue.getCronJob(id)).toMatchObject({
      timezone: 'Asia/Kolkata',
      nextRunAt: at('2030-01-01T00:30:00Z'),
    });
  });

  it('editCronJob keeps nextRunAt on other edits, and later jobs carry the edited options', async () => {
    const { clock, queue } = setup();
    const id = await queue.addCronJob(schedule({ cronExpression: '0 * * * *' }));
    clock.set(at('2030-01-01T00:40:00Z'));
    await queue.editCronJob(id, {
      payload: { kind: 'weekly' },
      priority: 5,
      maxAttempts: 1,
      tags: ['edited'],
      allowOverlap: true,
    });
    expect(await queue.getCronJob(id)).toMatchObject({
      payload: { kind: 'weekly' },
      priority: 5,
      maxAttempts: 1,
      tags: ['edited'],
      allowOverlap: true,
      cronExpression: '0 * * * *',
      nextRunAt: at('2030-01-01T01:00:00Z'),
      updatedAt: at('2030-01-01T00:40:00Z'),
    });
    clock.set(at('2030-01-01T01:00:00Z'));
    expect(await queue.enqueueDueCronJobs()).toBe(1);
    expect((await queue.getJobs())[0]).toMatchObject({
      payload: { kind: 'weekly' },
      priority: 5,
      maxAttempts: 1,
      tags: ['edited'],
    });
  });

  it('removeCronJob deletes the definition; the jobs it enqueued stay', async () => {
    const { clock, queue } = setup();
    const id = await queue.addCronJob(schedule({ allowOverlap: true }));
    clock.set(at('2030-01-01T00:05:00Z'));
    expect(await queue.enqueueDueCronJobs()).toBe(1);
    const [job] = await queue.getJobs();
    await queue.removeCronJob(id);
    expect(await queue.getCronJob(id)).toBeNull();
    expect(await queue.getCronJobByName('nightly')).toBeNull();
    expect(await queue.listCronJobs()).toEqual([]);
    expect((await queue.getJob(job!.id))?.status).toBe('pending');
    clock.set(at('2030-01-01T00:10:00Z'));
    expect(await queue.enqueueDueCronJobs()).toBe(0);
    expect(await queue.getJobs()).toHaveLength(1);
    // The name is free again.
    expect(await queue.addCronJob(schedule())).toBeGreaterThan(0);
  });

  describe('validation', () => {
    const cases: { name: string; options: () => unknown; field: string; fragments: string[] }[] = [
      {
        name: 'an expression that is not cron',
        options: () => schedule({ cronExpression: 'every day' }),
        field: 'cronExpression',
        fragments: ['every day'],
      },
      {
        name: 'six fields',
        options: () => schedule({ cronExpression: '0 0 * * * *' }),
        field: 'cronExpression',
        fragments: ['0 0 * * * *'],
      },
      {
        name: 'an out-of-range minute',
        options: () => schedule({ cronExpression: '61 * * * *' }),
        field: 'cronExpression',
        fragments: ['61 * * * *'],
      },
      {
        name: 'an unknown time zone',
        options: () => schedule({ timezone: 'Mars/Olympus_Mons' }),
        field: 'timezone',
        fragments: ['Mars/Olympus_Mons'],
      },
      {
        name: 'a missing payload',
        options: () => ({ ...schedule(), payload: undefined }),
        field: 'payload',
        fragments: [],
      },
      {
        name: 'a missing jobType',
        options: () => ({ ...schedule(), jobType: undefined }),
        field: 'jobType',
        fragments: [],
      },
      {
        name: 'an empty scheduleName',
        options: () => schedule({ scheduleName: '' }),
        field: 'scheduleName',
        fragments: [],
      },
      { name: 'maxAttempts 0', options: () => schedule({ maxAttempts: 0 }), field: 'maxAttempts', fragments: ['0'] },
      {
        name: 'non-string tags',
        options: () => schedule({ tags: [1] as unknown as string[] }),
        field: 'tags',
        fragments: [],
      },
    ];
    for (const c of cases) {
      it(`addCronJob rejects ${c.name} naming the field, and writes nothing`, async () => {
        const { queue } = setup();
        const error = await expectFailure(() => queue.addCronJob(c.options() as CronJobOptions), ValidationError, {
          message: c.fragments,
        });
        expect((error as ValidationError).field.startsWith(c.field)).toBe(true);
        expect(await queue.listCronJobs()).toEqual([]);
        expect(await queue.getJobs()).toEqual([]);
      });
    }
  });

  it('addCronJob rejects a duplicate name on scheduleName and keeps the first schedule unchanged', async () => {
    const { queue } = setup();
    const id = await queue.addCronJob(schedule());
    const before = await queue.getCronJob(id);
    await expectFailure(
      () => queue.addCronJob(schedule({ cronExpression: '0 0 * * *', jobType: 'other' })),
      ValidationError,
      {
        field: 'scheduleName',
        message: ['nightly'],
      },
    );
    expect(await queue.listCronJobs()).toEqual([before]);
  });

  it('editCronJob rejects an invalid expression or time zone and changes nothing', async () => {
    const { clock, queue } = setup();
    const id = await queue.addCronJob(schedule());
    const before = await queue.getCronJob(id);
    clock.advance(MINUTE);
    await expectFailure(() => queue.editCronJob(id, { cronExpression: '* * *' }), ValidationError, {
      field: 'updates.cronExpression',
      message: ['* * *'],
    });
    await expectFailure(() => queue.editCronJob(id, { timezone: 'Nowhere/Land' }), ValidationError, {
      field: 'updates.timezone',
      message: ['Nowhere/Land'],
    });
    expect(await queue.getCronJob(id)).toEqual(before);
  });

  describe('allowOverlap', () => {
    /** Enqueues the next slot of a per-minute schedule and returns the id of the job it created, if any. */
    async function nextSlot(
      queue: ReturnType<typeof setup>['queue'],
      clock: ManualClock,
      id: number,
    ): Promise<number | null> {
      const before = (await queue.getCronJob(id))!;
      clock.set(before.nextRunAt);
      const count = await queue.enqueueDueCronJobs();
      const after = (await queue.getCronJob(id))!;
      // Enqueued or skipped, the slot is spent: nextRunAt moves on either way.
      expect(after.nextRunAt.getTime()).toBe(before.nextRunAt.getTime() + MINUTE);
      expect(count === 1 ? after.lastJobId !== before.lastJobId : after.lastJobId === before.lastJobId).toBe(true);
      return count === 1 ? after.lastJobId : null;
    }

    it('allowOverlap false: no new instance while the last is pending, processing or failed with a retry due', async () => {
      const { clock, queue } = setup();
      const id = await queue.addCronJob(schedule({ cronExpression: '* * * * *', jobType: 'tick' }));
      const first = await nextSlot(queue, clock, id);
      expect(first).not.toBeNull();
      expect(await nextSlot(queue, clock, id)).toBeNull(); // pending
      await claimJob(queue, first!);
      expect(await nextSlot(queue, clock, id)).toBeNull(); // processing
      await failOne(backendOf(queue), {
        jobId: first!,
        workerId: 'conformance-worker',
        message: 'boom',
        reason: 'handler_error',
        retryAt: new Date(clock.now().getTime() + HOUR),
        now: clock.now(),
      });
      expect(await queue.getJob(first!)).toMatchObject({ status: 'failed' });
      expect(await nextSlot(queue, clock, id)).toBeNull(); // failed, retry due
      expect(await queue.getJobs()).toHaveLength(1);
    });

    it('allowOverlap false: a new instance once the last one completed, failed for good or was cancelled', async () => {
      const { clock, queue } = setup();
      const id = await queue.addCronJob(schedule({ cronExpression: '* * * * *', jobType: 'tick' }));
      const first = await nextSlot(queue, clock, id);
      await completeJob(queue, first!);
      const second = await nextSlot(queue, clock, id);
      expect(second).not.toBeNull();
      await failJob(queue, second!); // no retry left
      const third = await nextSlot(queue, clock, id);
      expect(third).not.toBeNull();
      await queue.cancelJob(third!);
      const fourth = await nextSlot(queue, clock, id);
      expect(fourth).not.toBeNull();
      expect(new Set([first, second, third, fourth]).size).toBe(4);
      expect(await queue.getJobs()).toHaveLength(4);
    });

    it('allowOverlap true: every slot enqueues, whatever the earlier instances do', async () => {
      const { clock, queue } = setup();
      const id = await queue.addCronJob(schedule({ cronExpression: '* * * * *', jobType: 'tick', allowOverlap: true }));
      const first = await nextSlot(queue, clock, id);
      await claimJob(queue, first!);
      expect(await nextSlot(queue, clock, id)).not.toBeNull(); // first processing
      expect(await nextSlot(queue, clock, id)).not.toBeNull(); // first processing, second pending
      expect(await queue.getJobs()).toHaveLength(3);
    });
  });

  it('processor.start() enqueues due schedules first, then runs the jobs in the same pass', async () => {
    const { clock, queue } = setup();
    await queue.addCronJob(schedule({ scheduleName: 'a', jobType: 'report', payload: { n: 1 } }));
    await queue.addCronJob(
      schedule({ scheduleName: 'b', jobType: 'report', payload: { n: 2 }, cronExpression: '0 * * * *' }),
    );
    const seen: unknown[] = [];
    const processor = queue.createProcessor({ report: async (p: unknown) => void seen.push(p) });
    clock.set(at('2030-01-01T00:04:00Z'));
    expect(await processor.start()).toBe(0);
    clock.set(at('2030-01-01T00:05:00Z'));
    expect(await processor.start()).toBe(1);
    expect(seen).toEqual([{ n: 1 }]);
    clock.set(at('2030-01-01T01:00:00Z')); // both due
    expect(await processor.start()).toBe(2);
    expect(seen).toHaveLength(3);
    expect(seen.slice(1)).toEqual(expect.arrayContaining([{ n: 1 }, { n: 2 }]));
    expect((await queue.getJobsByStatus('completed')).length).toBe(3);
  });

  describe('daylight saving time', () => {
    /**
     * Steps the clock from slot to slot of a daily schedule created at `from`, enqueueing at each
     * slot, and at each of the `extraProbes` times too (where a second slot must NOT appear).
     * Returns the slots that enqueued a job.
     */
    async function stepThrough(options: {
      expression: string;
      timezone: string;
      from: string;
      slots: number;
      extraProbes?: string[];
    }) {
      const { clock, queue } = setup(at(options.from));
      const id = await queue.addCronJob(
        schedule({
          cronExpression: options.expression,
          timezone: options.timezone,
          allowOverlap: true,
          jobType: 'dst',
        }),
      );
      const probes = (options.extraProbes ?? []).map((p) => at(p).getTime());
      const enqueuedAt: Date[] = [];
      for (let i = 0; i < options.slots; i++) {
        const next = (await queue.getCronJob(id))!.nextRunAt;
        // Probe the times before this slot: nothing may be enqueued there.
        for (const p of probes.filter((t) => t > clock.now().getTime() && t < next.getTime())) {
          clock.set(p);
          expect(await queue.enqueueDueCronJobs(), `nothing due at ${new Date(p).toISOString()}`).toBe(0);
        }
        clock.set(next);
        expect(await queue.enqueueDueCronJobs()).toBe(1);
        enqueuedAt.push(next);
      }
      expect(await queue.getJobs()).toHaveLength(options.slots);
      return enqueuedAt.map((d) => d.toISOString());
    }

    it('America/New_York, spring gap: 02:30 does not exist on 2025-03-09; that day runs once, just after the gap', async () => {
      const slots = await stepThrough({
        expression: '30 2 * * *',
        timezone: 'America/New_York',
        from: '2025-03-07T12:00:00Z',
        slots: 4,
      });
      expect(slots[0]).toBe('2025-03-08T07:30:00.000Z'); // 02:30 EST
      // The clocks jump from 02:00 EST to 03:00 EDT (07:00Z); the run falls in 03:00..03:30 EDT.
      const gapDay = at(slots[1]!).getTime();
      expect(gapDay).toBeGreaterThanOrEqual(at('2025-03-09T07:00:00Z').getTime());
      expect(gapDay).toBeLessThanOrEqual(at('2025-03-09T07:30:00Z').getTime());
      expect(slots.slice(2)).toEqual(['2025-03-10T06:30:00.000Z', '2025-03-11T06:30:00.000Z']); // 02:30 EDT
    });

    it('America/New_York, autumn overlap: 01:30 happens twice on 2025-11-02; the schedule runs once that day', async () => {
      const slots = await stepThrough({
        expression: '30 1 * * *',
        timezone: 'America/New_York',
        from: '2025-10-31T12:00:00Z',
        slots: 4,
        // 01:30 EDT is 05:30Z, 01:30 EST is 06:30Z: whichever is not used must enqueue nothing.
        extraProbes: ['2025-11-02T05:30:00Z', '2025-11-02T06:30:00Z', '2025-11-02T07:00:00Z'],
      });
      expect(slots[0]).toBe('2025-11-01T05:30:00.000Z');
      expect(['2025-11-02T05:30:00.000Z', '2025-11-02T06:30:00.000Z']).toContain(slots[1]);
      expect(slots.slice(2)).toEqual(['2025-11-03T06:30:00.000Z', '2025-11-04T06:30:00.000Z']);
    });

    it('Europe/Berlin, spring gap: 02:30 does not exist on 2025-03-30; that day runs once, just after the gap', async () => {
      const slots = await stepThrough({
        expression: '30 2 * * *',
        timezone: 'Europe/Berlin',
        from: '2025-03-28T12:00:00Z',
        slots: 4,
      });
      expect(slots[0]).toBe('2025-03-29T01:30:00.000Z'); // 02:30 CET
      // The clocks jump from 02:00 CET to 03:00 CEST (01:00Z); the run falls in 03:00..03:30 CEST.
      const gapDay = at(slots[1]!).getTime();
      expect(gapDay).toBeGreaterThanOrEqual(at('2025-03-30T01:00:00Z').getTime());
      expect(gapDay).toBeLessThanOrEqual(at('2025-03-30T01:30:00Z').getTime());
      expect(slots.slice(2)).toEqual(['2025-03-31T00:30:00.000Z', '2025-04-01T00:30:00.000Z']); // 02:30 CEST
    });

    it('Europe/Berlin, autumn overlap: 02:30 happens twice on 2025-10-26; the schedule runs once that day', async () => {
      const slots = await stepThrough({
        expression: '30 2 * * *',
        timezone: 'Europe/Berlin',
        from: '2025-10-24T12:00:00Z',
        slots: 4,
        // 02:30 CEST is 00:30Z, 02:30 CET is 01:30Z.
        extraProbes: ['2025-10-26T00:30:00Z', '2025-10-26T01:30:00Z', '2025-10-26T02:00:00Z'],
      });
      expect(slots[0]).toBe('2025-10-25T00:30:00.000Z');
      expect(['2025-10-26T00:30:00.000Z', '2025-10-26T01:30:00.000Z']).toContain(slots[1]);
      expect(slots.slice(2)).toEqual(['2025-10-27T01:30:00.000Z', '2025-10-28T01:30:00.000Z']);
    });

    it('a fixed local time keeps its wall-clock hour across the change (09:00 New York)', async () => {
      const slots = await stepThrough({
        expression: '0 9 * * *',
        timezone: 'America/New_York',
        from: '2025-03-07T15:00:00Z',
        slots: 3,
      });
      expect(slots).toEqual(['2025-03-08T14:00:00.000Z', '2025-03-09T13:00:00.000Z', '2025-03-10T13:00:00.000Z']);
    });
  });
});
