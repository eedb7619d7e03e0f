/**
 * Cron schedule input shared by both backends (SPEC §2.9, §4.4): validation of schedules and
 * edits, and the job a schedule creates for a slot. The operations themselves (add, edit, the
 * due-slot enqueue) are in operations/cron.ts.
 */
import type { CronScheduleEdit, NewCronSchedule, NewJob } from './backend.js';
import { nextCronRun, requireCronExpression, requireTimezone } from './cron.js';
import { checkBoolean, checkKnownKeys, checkObject } from './checks.js';
import { ValidationError } from './errors.js';
import type { InputLimits } from './input-limits.js';
import type { CronJobOptions, CronScheduleRecord, EditCronJobOptions, JobOptions } from './types.js';
import { normalizeJob, requireNonEmptyString } from './validation.js';

const JOB_FIELDS = [
  'maxAttempts',
  'priority',
  'timeoutMs',
  'tags',
  'retryDelay',
  'retryBackoff',
  'retryDelayMax',
] as const;
const EDITABLE = ['cronExpression', 'timezone', 'allowOverlap', 'payload', ...JOB_FIELDS] as const;
const CRON_OPTION_KEYS = ['scheduleName', 'jobType', ...EDITABLE] as const;

/**
 * Validates the job-shaped part of a schedule with the same rules as addJob; `limits` bound the
 * payload when the caller gives it (a stored schedule's payload was checked when written).
 */
function jobFields(source: Record<string, unknown>, now: Date, limits?: InputLimits): NewJob {
  const options: Record<string, unknown> = { jobType: source.jobType, payload: source.payload };
  for (const key of JOB_FIELDS) if (source[key] !== undefined) options[key] = source[key];
  return normalizeJob('', options as unknown as JobOptions, now, { limits });
}

export function normalizeCronJob(options: CronJobOptions, now: Date, limits: InputLimits): NewCronSchedule {
  checkObject(ValidationError, 'options', options, 'an object of cron job options');
  checkKnownKeys(ValidationError, '', options, CRON_OPTION_KEYS, 'cron job options');
  const scheduleName = requireNonEmptyString('scheduleName', options.scheduleName);
  const cronExpression = requireCronExpression('cronExpression', options.cronExpression);
  const timezone = options.timezone === undefined ? 'UTC' : requireTimezone('timezone', options.timezone);
  const allowOverlap =
    options.allowOverlap === undefined ? false : checkBoolean(ValidationError, 'allowOverlap', options.allowOverlap);
  const job = jobFields(options as unknown as Record<string, unknown>, now, limits);
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
export function normalizeCronEdit(
  current: CronScheduleRecord,
  updates: EditCronJobOptions,
  now: Date,
  limits: InputLimits,
): CronScheduleEdit {
  const u = checkObject(ValidationError, 'updates', updates, 'an object of cron schedule fields');
  checkKnownKeys(ValidationError, 'updates', u, EDITABLE, 'cron schedule edits');
  const edit: CronScheduleEdit = {};
  if (u.cronExpression !== undefined)
    edit.cronExpression = requireCronExpression('updates.cronExpression', u.cronExpression);
  if (u.timezone !== undefined) edit.timezone = requireTimezone('updates.timezone', u.timezone);
  if (u.allowOverlap !== undefined) edit.allowOverlap = checkBoolean(ValidationError, 'allowOverlap', u.allowOverlap);
  // Check the job fields with addJob's rules, over the current values.
  const merged = withoutNullJobFields({
    ...current,
    ...Object.fromEntries(Object.entries(u).filter(([, v]) => v !== undefined)),
  });
  const job = jobFields(merged, now, u.payload === undefined ? undefined : limits);
  if (u.payload !== undefined) edit.payload = job.payload;
  for (const key of JOB_FIELDS) if (u[key] !== undefined) (edit as Record<string, unknown>)[key] = job[key];
  if (edit.cronExpression !== undefined || edit.timezone !== undefined) {
    edit.nextRunAt = nextCronRun(edit.cronExpression ?? current.cronExpression, edit.timezone ?? current.timezone, now);
  }
  return edit;
}

/** The job a schedule creates for a slot: its options (null means unset), due now. */
export function jobForSchedule(s: CronScheduleRecord, now: Date): NewJob {
  return jobFields(withoutNullJobFields({ ...s }), now);
}

/** `record` without the job fields it holds as null: for a job, null means unset. */
function withoutNullJobFields(record: Record<string, unknown>): Record<string, unknown> {
  const jobFieldNames = new Set<string>(JOB_FIELDS);
  return Object.fromEntries(
    Object.entries(record).filter(([key, value]) => !(value === null && jobFieldNames.has(key))),
  );
}
