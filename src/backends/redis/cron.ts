/**
 * Cron schedules (SPEC §2.9, §4.4) on Redis: the CronStore operations, each one Lua script, and
 * the mapping of the stored schedule to CronScheduleRecord. Payloads are stored verbatim in
 * `cron-payloads`, apart from the metadata Lua decodes (see keys.ts).
 */
import type { CronScheduleEdit, CronSlot, NewCronSchedule } from '../../backend.js';
import { StoreFact } from '../../store-facts.js';
import type { CronScheduleRecord, CronScheduleStatus } from '../../types.js';
import type { BackendContext } from './context.js';
import { addedEventText, floatText, toStoredJob } from './record.js';

/**
 * The schedule metadata in the `cron` hash. Times are epoch milliseconds; as for jobs
 * (record.ts), the float retry options are decimal text so cjson never rounds them, and an
 * empty `tags` may come back from Lua as `{}`.
 */
export interface StoredCronSchedule {
  id: number;
  scheduleName: string;
  cronExpression: string;
  jobType: string;
  timezone: string;
  allowOverlap: boolean;
  status: CronScheduleStatus;
  maxAttempts: number;
  priority: number;
  timeoutMs: number | null;
  tags: string[] | Record<string, never>;
  retryDelay: string | null;
  retryBackoff: boolean | null;
  retryDelayMax: string | null;
  lastEnqueuedAt: number | null;
  lastJobId: number | null;
  nextRunAt: number;
  createdAt: number;
  updatedAt: number;
}

/** A schedule as scripts return it (includes/cron-row.lua): metadata and payload texts. */
type ScheduleRow = [meta: string, payload: string | null];

function toCronRecord([metaText, payloadText]: ScheduleRow): CronScheduleRecord {
  const s = JSON.parse(metaText) as StoredCronSchedule;
  return {
    id: s.id,
    scheduleName: s.scheduleName,
    cronExpression: s.cronExpression,
    jobType: s.jobType,
    payload: payloadText === null ? null : JSON.parse(payloadText),
    timezone: s.timezone,
    allowOverlap: s.allowOverlap,
    status: s.status,
    maxAttempts: s.maxAttempts,
    priority: s.priority,
    timeoutMs: s.timeoutMs ?? null,
    tags: Array.isArray(s.tags) ? s.tags : [],
    retryDelay: s.retryDelay == null ? null : Number(s.retryDelay),
    retryBackoff: s.retryBackoff ?? null,
    retryDelayMax: s.retryDelayMax == null ? null : Number(s.retryDelayMax),
    lastEnqueuedAt: s.lastEnqueuedAt == null ? null : new Date(s.lastEnqueuedAt),
    lastJobId: s.lastJobId ?? null,
    nextRunAt: new Date(s.nextRunAt),
    createdAt: new Date(s.createdAt),
    updatedAt: new Date(s.updatedAt),
  };
}

async function addCronSchedule(ctx: BackendContext, schedule: NewCronSchedule, now: Date): Promise<number> {
  const t = now.getTime();
  const stored: Omit<StoredCronSchedule, 'id'> = {
    scheduleName: schedule.scheduleName,
    cronExpression: schedule.cronExpression,
    jobType: schedule.jobType,
    timezone: schedule.timezone,
    allowOverlap: schedule.allowOverlap,
    status: 'active',
    maxAttempts: schedule.maxAttempts,
    priority: schedule.priority,
    timeoutMs: schedule.timeoutMs,
    tags: schedule.tags,
    retryDelay: floatText(schedule.retryDelay),
    retryBackoff: schedule.retryBackoff,
    retryDelayMax: floatText(schedule.retryDelayMax),
    lastEnqueuedAt: null,
    lastJobId: null,
    nextRunAt: schedule.nextRunAt.getTime(),
    createdAt: t,
    updatedAt: t,
  };
  const reply = await ctx.run<number | ['taken', number]>('addCronSchedule', [
    JSON.stringify(stored),
    JSON.stringify(schedule.payload ?? null),
  ]);
  if (Array.isArray(reply))
    throw new StoreFact({ kind: 'schedule-name-taken', name: schedule.scheduleName, holderId: reply[1] });
  ctx.sawScheduleIds([reply]);
  return reply;
}

async function getCronSchedules(
  ctx: BackendContext,
  query: { id?: number; name?: string; status?: CronScheduleStatus },
): Promise<CronScheduleRecord[]> {
  const rows = await ctx.run<ScheduleRow[]>('getCronSchedules', [query.id ?? '', query.name ?? '', query.status ?? '']);
  const schedules = rows.map(toCronRecord);
  ctx.sawScheduleIds(schedules.map((s) => s.id));
  return schedules;
}

async function getDueCronSchedules(ctx: BackendContext, now: Date, limit: number): Promise<CronScheduleRecord[]> {
  if (limit <= 0) return [];
  const rows = await ctx.run<ScheduleRow[]>('getDueCronSchedules', [now.getTime(), limit]);
  return rows.map(toCronRecord);
}

async function editCronSchedule(
  ctx: BackendContext,
  id: number,
  edit: CronScheduleEdit & { status?: CronScheduleStatus },
  now: Date,
): Promise<boolean> {
  // The metadata fields in their stored form; the payload travels apart, verbatim.
  const changes: Partial<StoredCronSchedule> = {};
  if (edit.cronExpression !== undefined) changes.cronExpression = edit.cronExpression;
  if (edit.jobType !== undefined) changes.jobType = edit.jobType;
  if (edit.timezone !== undefined) changes.timezone = edit.timezone;
  if (edit.allowOverlap !== undefined) changes.allowOverlap = edit.allowOverlap;
  if (edit.status !== undefined) changes.status = edit.status;
  if (edit.maxAttempts !== undefined) changes.maxAttempts = edit.maxAttempts;
  if (edit.priority !== undefined) changes.priority = edit.priority;
  if (edit.timeoutMs !== undefined) changes.timeoutMs = edit.timeoutMs;
  if (edit.tags !== undefined) changes.tags = edit.tags;
  if (edit.retryDelay !== undefined) changes.retryDelay = floatText(edit.retryDelay);
  if (edit.retryBackoff !== undefined) changes.retryBackoff = edit.retryBackoff;
  if (edit.retryDelayMax !== undefined) changes.retryDelayMax = floatText(edit.retryDelayMax);
  if (edit.nextRunAt !== undefined) changes.nextRunAt = edit.nextRunAt.getTime();
  const payload = edit.payload !== undefined ? JSON.stringify(edit.payload) : '';
  return (await ctx.run<0 | 1>('editCronSchedule', [id, JSON.stringify(changes), payload, now.getTime()])) === 1;
}

async function removeCronSchedule(ctx: BackendContext, id: number): Promise<boolean> {
  return (await ctx.run<number>('removeCronSchedule', [id])) === 1;
}

async function enqueueCronSlots(
  ctx: BackendContext,
  slots: CronSlot[],
  now: Date,
): Promise<{ scheduleId: number; jobId: number | null }[]> {
  if (slots.length === 0) return [];
  // As in addJobs: the payload and `added` metadata travel as JSON text, stored verbatim.
  const batch = slots.map((slot) => ({
    scheduleId: slot.scheduleId,
    expectedNextRunAt: slot.expectedNextRunAt?.getTime() ?? null,
    nextRunAt: slot.nextRunAt?.getTime() ?? null,
    job: toStoredJob(slot.job, now),
    payload: JSON.stringify(slot.job.payload ?? null),
    added: addedEventText(slot.job),
  }));
  const ids = await ctx.run<number[]>('enqueueCronSlots', [now.getTime(), JSON.stringify(batch)]);
  const enqueued = slots.map((slot, i) => ({ scheduleId: slot.scheduleId, jobId: ids[i] === 0 ? null : ids[i]! }));
  ctx.sawJobIds(enqueued.map((slot) => slot.jobId));
  return enqueued;
}

export const cronOperations = {
  addCronSchedule,
  getCronSchedules,
  editCronSchedule,
  removeCronSchedule,
  getDueCronSchedules,
  enqueueCronSlots,
};
