/**
 * Cron schedule operations (SPEC §2.9, §4.4): add, edit, pause, resume, trigger, remove, and
 * the due-slot enqueue, whose jobs get their `job:added` hooks here like any other added job. The
 * backend makes each slot's enqueue atomic with the advance of `nextRunAt` (compare-and-set),
 * so any number of processors enqueue each slot once.
 */
import type { CronSlot } from '../backend.js';
import { nextCronRun } from '../cron.js';
import { jobForSchedule, normalizeCronEdit, normalizeCronJob } from '../cron-schedules.js';
import { NotFoundError } from '../errors.js';
import type { CronJobOptions, CronScheduleRecord, EditCronJobOptions } from '../types.js';
import { requireNonEmptyString } from '../validation.js';
import type { OperationsContext } from './context.js';

/** Due schedules read per round trip. */
const DUE_PAGE_SIZE = 100;

/** @internal */
export class CronOperations {
  constructor(private readonly ctx: OperationsContext) {}

  async add(options: CronJobOptions): Promise<number> {
    const { backend, clock, limits } = this.ctx;
    const now = clock.now();
    return backend.addCronSchedule(normalizeCronJob(options, now, limits), now);
  }

  async get(id: number): Promise<CronScheduleRecord | null> {
    return (await this.ctx.backend.getCronSchedules({ id }))[0] ?? null;
  }

  async getByName(name: string): Promise<CronScheduleRecord | null> {
    requireNonEmptyString('scheduleName', name);
    return (await this.ctx.backend.getCronSchedules({ name }))[0] ?? null;
  }

  async edit(id: number, updates: EditCronJobOptions): Promise<void> {
    const current = await this.require(id);
    const { backend, clock, limits } = this.ctx;
    const now = clock.now();
    const edit = normalizeCronEdit(current, updates, now, limits);
    if (Object.keys(edit).length === 0) return;
    await backend.editCronSchedule(id, edit, now);
  }

  async pause(id: number): Promise<void> {
    const { backend, clock } = this.ctx;
    if (!(await backend.editCronSchedule(id, { status: 'paused' }, clock.now()))) {
      throw new NotFoundError(`No cron schedule with id ${id}`);
    }
  }

  /** Resumes from now on: slots missed while paused are not caught up. */
  async resume(id: number): Promise<void> {
    const current = await this.require(id);
    if (current.status === 'active') return;
    const { backend, clock } = this.ctx;
    const now = clock.now();
    const nextRunAt = nextCronRun(current.cronExpression, current.timezone, now);
    await backend.editCronSchedule(id, { status: 'active', nextRunAt }, now);
  }

  /**
   * Enqueues one job of the schedule now, as a due slot would (its job options, lastJobId,
   * the overlap rule, the `job:added` hook), whatever its status; nextRunAt is left alone.
   * Returns the job id, or null when overlap is refused: the last job is still active.
   */
  async trigger(id: number): Promise<number | null> {
    const schedule = await this.require(id);
    const { backend, clock, hooks } = this.ctx;
    const now = clock.now();
    const slot: CronSlot = {
      scheduleId: id,
      expectedNextRunAt: null,
      nextRunAt: null,
      job: jobForSchedule(schedule, now),
    };
    const [result] = await backend.enqueueCronSlots([slot], now);
    const jobId = result?.jobId ?? null;
    if (jobId === null) {
      // Removed since it was read, or refused for overlap: only the first is an error.
      await this.require(id);
      return null;
    }
    hooks.added([{ jobId, jobType: schedule.jobType }]);
    return jobId;
  }

  async remove(id: number): Promise<void> {
    await this.ctx.backend.removeCronSchedule(id);
  }

  /**
   * Enqueues one job for every active schedule whose nextRunAt has passed and advances
   * nextRunAt to the first slot after now. Returns the number of jobs enqueued.
   */
  async enqueueDue(): Promise<number> {
    const { backend, clock, hooks } = this.ctx;
    const now = clock.now();
    let enqueued = 0;
    for (;;) {
      const due = await backend.getDueCronSchedules(now, DUE_PAGE_SIZE);
      if (due.length === 0) break;
      const slots: CronSlot[] = due.map((s) => ({
        scheduleId: s.id,
        expectedNextRunAt: s.nextRunAt,
        nextRunAt: nextCronRun(s.cronExpression, s.timezone, now),
        job: jobForSchedule(s, now),
      }));
      const results = await backend.enqueueCronSlots(slots, now);
      const typeBySchedule = new Map(due.map((s) => [s.id, s.jobType]));
      // A null jobId is a slot lost to another processor or skipped for overlap: nothing added.
      const added = results.flatMap(({ scheduleId, jobId }) =>
        jobId === null ? [] : [{ jobId, jobType: typeBySchedule.get(scheduleId)! }],
      );
      enqueued += added.length;
      hooks.added(added);
      if (due.length < DUE_PAGE_SIZE) break;
    }
    return enqueued;
  }

  private async require(id: number): Promise<CronScheduleRecord> {
    const schedule = await this.get(id);
    if (!schedule) throw new NotFoundError(`No cron schedule with id ${id}`);
    return schedule;
  }
}
