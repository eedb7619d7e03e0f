/**
 * Cron schedules (SPEC §2.9, §4.4) on PostgreSQL: the CronStore operations. SQL in
 * queries/cron.ts; the jobs of due slots are inserted by the backend's addJobs path.
 */
import type { AddJobsResult, CronScheduleEdit, CronSlot, CronStore, NewCronSchedule, NewJob } from '../../backend.js';
import { ValidationError, describeValue } from '../../errors.js';
import type { CronScheduleRecord, CronScheduleStatus, Queryable } from '../../types.js';
import type { Connection } from './connection.js';
import {
  addCronScheduleSql,
  casCronSlotsSql,
  cronIdByNameSql,
  dueCronSchedulesSql,
  editCronScheduleSql,
  getCronSchedulesSql,
  recordCronJobsSql,
  removeCronScheduleSql,
} from './queries/cron.js';
import type { SchemaNames } from './queries/names.js';
import { rowToCronSchedule, toId, type CronRow } from './rows.js';

/** Inserts jobs inside the caller's transaction, exactly as addJobs does (events, wake-up). */
export type InsertJobs = (tx: Queryable, jobs: NewJob[], now: Date) => Promise<AddJobsResult>;

const UNIQUE_VIOLATION = '23505';
const NAME_CONSTRAINT = 'cron_schedules_schedule_name_key';

export class PostgresCronStore implements CronStore {
  private readonly sql: ReturnType<typeof buildStatements>;

  constructor(
    private readonly conn: Connection,
    private readonly names: SchemaNames,
    private readonly insertJobs: InsertJobs,
  ) {
    this.sql = buildStatements(names);
  }

  async addCronSchedule(s: NewCronSchedule, now: Date): Promise<number> {
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
      const { rows } = await this.conn.query<{ id: string }>(this.sql.add, values);
      return toId(rows[0]!.id);
    } catch (err) {
      throw await this.nameTakenOr(err, s.scheduleName);
    }
  }

  async getCronSchedules(query: { id?: number; name?: string; status?: CronScheduleStatus }): Promise<CronScheduleRecord[]> {
    const { text, values } = getCronSchedulesSql(this.names, query);
    const { rows } = await this.conn.query<CronRow>(text, values);
    return rows.map(rowToCronSchedule);
  }

  async editCronSchedule(id: number, edit: CronScheduleEdit & { status?: CronScheduleStatus }, now: Date): Promise<boolean> {
    const { text, values } = editCronScheduleSql(this.names, id, edit, now);
    try {
      const { rows } = await this.conn.query(text, values);
      return rows.length > 0;
    } catch (err) {
      // Not part of CronScheduleEdit today; a rename, should one be passed, must stay unique.
      throw await this.nameTakenOr(err, (edit as { scheduleName?: string }).scheduleName ?? '');
    }
  }

  async removeCronSchedule(id: number): Promise<boolean> {
    const { rows } = await this.conn.query(this.sql.remove, [id]);
    return rows.length > 0;
  }

  async getDueCronSchedules(now: Date, limit: number): Promise<CronScheduleRecord[]> {
    if (limit <= 0) return [];
    const { rows } = await this.conn.query<CronRow>(this.sql.due, [now, limit]);
    return rows.map(rowToCronSchedule);
  }

  /**
   * One transaction for the whole list, three statements whatever its length: the
   * compare-and-set of every slot, the insert of the winners' jobs (addJobs), and the record
   * of each schedule's last job. A lost slot, or one skipped for overlap, yields null.
   */
  async enqueueCronSlots(slots: CronSlot[], now: Date): Promise<{ scheduleId: number; jobId: number | null }[]> {
    if (slots.length === 0) return [];
    const cas = JSON.stringify(
      slots.map((slot, i) => ({
        i,
        schedule_id: slot.scheduleId,
        expected: slot.expectedNextRunAt.toISOString(),
        next_run_at: slot.nextRunAt.toISOString(),
      })),
    );
    const jobIds = await this.conn.transaction(async (tx) => {
      const ids: (number | null)[] = slots.map(() => null);
      const { rows } = await tx.query(this.sql.cas, [cas, now, slots.map((slot) => slot.scheduleId)]);
      const winners = (rows as { i: number; id: string; enqueue: boolean }[]).filter((r) => r.enqueue).sort((a, b) => a.i - b.i);
      if (winners.length === 0) return ids;
      const added = await this.insertJobs(
        tx,
        winners.map((w) => slots[w.i]!.job),
        now,
      );
      winners.forEach((w, k) => (ids[w.i] = added.ids[k]!));
      await tx.query(this.sql.record, [winners.map((w) => w.id), added.ids, now]);
      return ids;
    });
    return slots.map((slot, i) => ({ scheduleId: slot.scheduleId, jobId: jobIds[i]! }));
  }

  /** A duplicate schedule name as the ValidationError callers expect; any other error as it is. */
  private async nameTakenOr(err: unknown, name: string): Promise<unknown> {
    const e = err as { code?: string; constraint?: string };
    if (e.code !== UNIQUE_VIOLATION || e.constraint !== NAME_CONSTRAINT) return err;
    // The holder committed before our insert failed, so a new statement sees it (unless it was
    // removed in between).
    const { rows } = await this.conn.query<{ id: string }>(this.sql.idByName, [name]);
    const holder = rows[0] ? `, already the name of cron schedule ${toId(rows[0].id)}` : ', already taken';
    return new ValidationError('scheduleName', `Expected \`scheduleName\` to be unique, got ${describeValue(name)}${holder}`);
  }
}

function buildStatements(t: SchemaNames) {
  return {
    add: addCronScheduleSql(t),
    idByName: cronIdByNameSql(t),
    remove: removeCronScheduleSql(t),
    due: dueCronSchedulesSql(t),
    cas: casCronSlotsSql(t),
    record: recordCronJobsSql(t),
  };
}
