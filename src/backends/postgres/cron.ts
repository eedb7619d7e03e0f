/**
 * Cron schedules (SPEC §2.9, §4.4) on PostgreSQL: the CronStore operations. SQL in
 * queries/cron.ts; the jobs of due slots are inserted as addJobs inserts them (jobs.ts).
 */
import type { CronScheduleEdit, CronSlot, NewCronSchedule } from '../../backend.js';
import { StoreFact } from '../../store-facts.js';
import type { CronScheduleRecord, CronScheduleStatus } from '../../types.js';
import type { PostgresContext } from './context.js';
import { insertJobs } from './jobs.js';
import { editCronScheduleSql, getCronSchedulesSql } from './queries/cron.js';
import { rowToCronSchedule, toId, type CronRow } from './rows.js';

const UNIQUE_VIOLATION = '23505';
const NAME_CONSTRAINT = 'cron_schedules_schedule_name_key';

async function addCronSchedule(ctx: PostgresContext, s: NewCronSchedule, now: Date): Promise<number> {
  const values = [
    s.scheduleName,
    s.cronExpression,
    s.jobType,
    JSON.stringify(s.payload ?? null),
    s.timezone,
    s.allowOverlap,
    s.maxAttempts,
    s.priority,
    s.timeoutMs,
    s.tags,
    s.retryDelay,
    s.retryBackoff,
    s.retryDelayMax,
    s.nextRunAt,
    now,
  ];
  try {
    const { rows } = await ctx.conn.query<{ id: string }>(ctx.sql.addCronSchedule, values);
    return toId(rows[0]!.id);
  } catch (err) {
    throw await nameTakenOr(ctx, err, s.scheduleName);
  }
}

async function getCronSchedules(
  ctx: PostgresContext,
  query: { id?: number; name?: string; status?: CronScheduleStatus },
): Promise<CronScheduleRecord[]> {
  const { text, values } = getCronSchedulesSql(ctx.names, query);
  const { rows } = await ctx.conn.query<CronRow>(text, values);
  return rows.map(rowToCronSchedule);
}

async function editCronSchedule(
  ctx: PostgresContext,
  id: number,
  edit: CronScheduleEdit & { status?: CronScheduleStatus },
  now: Date,
): Promise<boolean> {
  const { text, values } = editCronScheduleSql(ctx.names, id, edit, now);
  const { rows } = await ctx.conn.query(text, values);
  return rows.length > 0;
}

async function removeCronSchedule(ctx: PostgresContext, id: number): Promise<boolean> {
  const { rows } = await ctx.conn.query(ctx.sql.removeCronSchedule, [id]);
  return rows.length > 0;
}

async function getDueCronSchedules(ctx: PostgresContext, now: Date, limit: number): Promise<CronScheduleRecord[]> {
  if (limit <= 0) return [];
  const { rows } = await ctx.conn.query<CronRow>(ctx.sql.dueCronSchedules, [now, limit]);
  return rows.map(rowToCronSchedule);
}

/**
 * One transaction for the whole list, three statements whatever its length: the
 * compare-and-set of every slot, the insert of the winners' jobs (as addJobs), and the record
 * of each schedule's last job (a fourth, the lock, first when a slot is triggered). A lost
 * slot, or one skipped for overlap, yields null.
 */
async function enqueueCronSlots(
  ctx: PostgresContext,
  slots: CronSlot[],
  now: Date,
): Promise<{ scheduleId: number; jobId: number | null }[]> {
  if (slots.length === 0) return [];
  const cas = JSON.stringify(
    slots.map((slot, i) => ({
      i,
      schedule_id: slot.scheduleId,
      expected: slot.expectedNextRunAt?.toISOString() ?? null,
      next_run_at: slot.nextRunAt?.toISOString() ?? null,
    })),
  );
  const triggered = slots.some((slot) => slot.expectedNextRunAt === null);
  const jobIds = await ctx.conn.transaction(async (tx) => {
    const ids: (number | null)[] = slots.map(() => null);
    // A triggered run has no compare-and-set to lose: lock first, so the next statement's
    // snapshot sees a job a concurrent trigger committed (overlap rule; see casCronSlotsSql).
    if (triggered) await tx.query(ctx.sql.lockCronSchedules, [slots.map((slot) => slot.scheduleId)]);
    const { rows } = await tx.query(ctx.sql.casCronSlots, [cas, now, slots.map((slot) => slot.scheduleId)]);
    const winners = (rows as { i: number; id: string; enqueue: boolean }[])
      .filter((r) => r.enqueue)
      .sort((a, b) => a.i - b.i);
    if (winners.length === 0) return ids;
    const added = await insertJobs(
      ctx,
      tx,
      winners.map((w) => slots[w.i]!.job),
      now,
    );
    winners.forEach((w, k) => (ids[w.i] = added.ids[k]!));
    await tx.query(ctx.sql.recordCronJobs, [winners.map((w) => w.id), added.ids, now]);
    return ids;
  });
  return slots.map((slot, i) => ({ scheduleId: slot.scheduleId, jobId: jobIds[i]! }));
}

export const cronOperations = {
  addCronSchedule,
  getCronSchedules,
  editCronSchedule,
  removeCronSchedule,
  getDueCronSchedules,
  enqueueCronSlots,
};

/** A duplicate schedule name as the fact callers are told; any other error as it is. */
async function nameTakenOr(ctx: PostgresContext, err: unknown, name: string): Promise<unknown> {
  const e = err as { code?: string; constraint?: string };
  if (e.code !== UNIQUE_VIOLATION || e.constraint !== NAME_CONSTRAINT) return err;
  // The holder committed before our insert failed, so a new statement sees it (unless it was
  // removed in between).
  const { rows } = await ctx.conn.query<{ id: string }>(ctx.sql.cronIdByName, [name]);
  return new StoreFact({ kind: 'schedule-name-taken', name, holderId: rows[0] ? toId(rows[0].id) : null });
}
