/**
 * Cron schedule operations shared by both backends (SPEC §2.9, §4.4): validation, next-run
 * computation and the due-slot enqueue. The backend makes each slot's enqueue atomic with the
 * advance of `nextRunAt` (compare-and-set), so any number of processors enqueue each slot once.
 */
import type { CronScheduleEdit, CronSlot, CronStore, NewCronSchedule, NewJob } from './backend.js';
import { nextCronRun, requireCronExpression, requireTimezone } from './cron.js';
import { checkBoolean, checkKnownKeys, checkObject } from './checks.js';
import { NotFoundError, ValidationError } from './errors.js';
import type { QueueEvents } from './events.js';
import type { Clock, CronJobOptions, CronScheduleRecord, EditCronJobOptions, JobOptions } from './types.js';
import { normalizeJob, requireNonEmptyString } from './validation.js';

/** Due schedules read per round trip. */
const DUE_PAGE_SIZE = 100;

const JOB_FIELDS = ['maxAttempts', 'priority', 'timeoutMs', 'tags', 'retryDelay', 'retryBackoff', 'retryDelayMax'] as const;
const EDITABLE = ['cronExpression', 'timezone', 'allowOverlap', 'payload', ...JOB_FIELDS] as const;
const CRON_OPTION_KEYS = ['scheduleName', 'jobType', ...EDITABLE] as const;

/** Validates the job-shaped part of a schedule with the same rules as addJob. */
function jobFields(source: Record<string, unknown>, now: Date): NewJob {
  const options: Record<string, unknown> = { jobType: source.jobType, payload: source.payload };
  for (const key of JOB_FIELDS) if (source[key] !== undefined) options[key] = source[key];
  return normalizeJob('', options as unknown as JobOptions, now);
}

export function normalizeCronJob(options: CronJobOptions, now: Date): NewCronSchedule {
  checkObject(ValidationError, 'options', options, 'an object of cron job options');
  checkKnownKeys(ValidationError, '', options, CRON_OPTION_KEYS, 'cron job options');
  const scheduleName = requireNonEmptyString('scheduleName', options.scheduleName);
  const cronExpression = requireCronExpression('cronExpression', options.cronExpression);
  const timezone = options.timezone === undefined ? 'UTC' : requireTimezone('timezone', options.timezone);
  const allowOverlap = options.allowOverlap === undefined ? false : checkBoolean(ValidationError, 'allowOverlap', options.allowOverlap);
  const job = jobFields(options as unknown as Record<string, unknown>, now);
  return {
    scheduleName,
    cronExpression,
    jobType: job.jobType,
    payload: job.payload,
    timezone,
    allowOverlap,
    maxAttempts: job.maxAttempts,
    priority: job.priority,
    timeoutMs: job.timeoutMs,
    tags: job.tags,
    retryDelay: job.retryDelay,
    retryBackoff: job.retryBackoff,
    retryDelayMax: job.retryDelayMax,
    nextRunAt: nextCronRun(cronExpression, timezone, now),
  };
}

/** Validates an edit against the current schedule; recomputes nextRunAt when the timing changed. */
export function normalizeCronEdit(current: CronScheduleRecord, updates: EditCronJobOptions, now: Date): CronScheduleEdit {
  const u = checkObject(ValidationError, 'updates', updates, 'an object of cron schedule fields');
  checkKnownKeys(ValidationError, 'updates', u, EDITABLE, 'cron schedule edits');
  const edit: CronScheduleEdit = {};
  if (u.cronExpression !== undefined) edit.cronExpression = requireCronExpression('updates.cronExpression', u.cronExpression);
  if (u.timezone !== undefined) edit.timezone = requireTimezone('updates.timezone', u.timezone);
  if (u.allowOverlap !== undefined) edit.allowOverlap = checkBoolean(ValidationError, 'allowOverlap', u.allowOverlap);
  // Check the job fields with addJob's rules, over the current values.
  const merged: Record<string, unknown> = { ...current, ...Object.fromEntries(Object.entries(u).filter(([, v]) => v !== undefined)) };
  for (const key of JOB_FIELDS) if (merged[key] === null) delete merged[key];
  const job = jobFields(merged, now);
  if (u.payload !== undefined) edit.payload = job.payload;
  for (const key of JOB_FIELDS) if (u[key] !== undefined) (edit as Record<string, unknown>)[key] = job[key];
  if (edit.cronExpression !== undefined || edit.timezone !== undefined) {
    edit.nextRunAt = nextCronRun(edit.cronExpression ?? current.cronExpression, edit.timezone ?? current.timezone, now);
  }
  return edit;
}

/** The job a schedule creates for a slot: its options (null means unset), due now. */
function jobForSchedule(s: CronScheduleRecord, now: Date): NewJob {
  const source: Record<string, unknown> = { ...s };
  for (const key of JOB_FIELDS) if (source[key] === null) delete source[key];
  return jobFields(source, now);
}

export class CronSchedules {
  constructor(
    private readonly backend: CronStore,
    private readonly clock: Clock,
    private readonly events: QueueEvents,
  ) {}

  async add(options: CronJobOptions): Promise<number> {
    const now = this.clock.now();
    return this.backend.addCronSchedule(normalizeCronJob(options, now), now);
  }

  async get(id: number): Promise<CronScheduleRecord | null> {
    return (await this.backend.getCronSchedules({ id }))[0] ?? null;
  }

  async getByName(name: string): Promise<CronScheduleRecord | null> {
    requireNonEmptyString('scheduleName', name);
    return (await this.backend.getCronSchedules({ name }))[0] ?? null;
  }

  async edit(id: number, updates: EditCronJobOptions): Promise<void> {
    const current = await this.require(id);
    const now = this.clock.now();
    const edit = normalizeCronEdit(current, updates, now);
    if (Object.keys(edit).length === 0) return;
    await this.backend.editCronSchedule(id, edit, now);
  }

  async pause(id: number): Promise<void> {
    if (!(await this.backend.editCronSchedule(id, { status: 'paused' }, this.clock.now()))) {
      throw new NotFoundError(`No cron schedule with id ${id}`);
    }
  }

  /** Resumes from now on: slots missed while paused are not caught up. */
  async resume(id: number): Promise<void> {
    const current = await this.require(id);
    if (current.status === 'active') return;
    const now = this.clock.now();
    const nextRunAt = nextCronRun(current.cronExpression, current.timezone, now);
    await this.backend.editCronSchedule(id, { status: 'active', nextRunAt }, now);
  }

  async remove(id: number): Promise<void> {
    await this.backend.removeCronSchedule(id);
  }

  /**
   * Enqueues one job for every active schedule whose nextRunAt has passed and advances
   * nextRunAt to the first slot after now. Returns the number of jobs enqueued.
   */
  async enqueueDue(): Promise<number> {
    const now = this.clock.now();
    let enqueued = 0;
    for (;;) {
      const due = await this.backend.getDueCronSchedules(now, DUE_PAGE_SIZE);
      if (due.length === 0) break;
      const slots: CronSlot[] = due.map((s) => ({
        scheduleId: s.id,
        expectedNextRunAt: s.nextRunAt,
        nextRunAt: nextCronRun(s.cronExpression, s.timezone, now),
        job: jobForSchedule(s, now),
      }));
      const results = await this.backend.enqueueCronSlots(slots, now);
      const typeBySchedule = new Map(due.map((s) => [s.id, s.jobType]));
      for (const { scheduleId, jobId } of results) {
        if (jobId === null) continue;
        enqueued++;
        this.events.emit('job:added', { jobId, jobType: typeBySchedule.get(scheduleId)! });
      }
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
