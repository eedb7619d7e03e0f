/**
 * Query plans of the cron and token statements that run on every processor or supervisor pass,
 * on tables large enough for the planner to choose: due schedules come from
 * cron_schedules_due_idx, token expiry from waitpoint_tokens_timeout_idx, and the jobs a settled
 * token resumes from job_queue_wait_token_idx. None is costly enough to be JIT-compiled.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { casCronSlotsSql, dueCronSchedulesSql } from '../../src/backends/postgres/queries/cron.js';
import { schemaNames } from '../../src/backends/postgres/queries/names.js';
import { expireTokensSql, resumeTokenWaitersSql } from '../../src/backends/postgres/queries/waits.js';
import { backendOf } from '../../src/queue.js';
import { usePostgres } from './support.js';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Total Cost': number;
  Plans?: PlanNode[];
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

describe('cron and token query plans (postgres)', () => {
  // The rows are inserted once for the file.
  const ctx = usePostgres({ truncate: false });
  const NOW = new Date('2030-01-01T00:00:00.000Z');
  let jitAboveCost: number;

  async function explain(text: string, values: unknown[]): Promise<{ plan: PlanNode; jit: boolean }> {
    const { rows } = await ctx.sql.query(`EXPLAIN (FORMAT JSON) ${text}`, values);
    const out = rows[0]['QUERY PLAN'][0];
    return { plan: out.Plan, jit: 'JIT' in out };
  }

  function usesIndex(plan: PlanNode, index: string): boolean {
    return nodes(plan).some((n) => n['Node Type'].includes('Index') && n['Index Name'] === index);
  }

  function seqScans(plan: PlanNode): string[] {
    return nodes(plan)
      .filter((n) => n['Node Type'] === 'Seq Scan')
      .map((n) => n['Relation Name'] ?? '?');
  }

  beforeAll(async () => {
    // 20k schedules: a third paused (and long overdue), the active ones due from 1 to 20 000
    // minutes from NOW except the first 50, which are due.
    await ctx.sql.query(
      `INSERT INTO ${ctx.table('cron_schedules')} (schedule_name, cron_expression, job_type, payload, status, next_run_at, created_at, updated_at)
       SELECT 's' || g, '* * * * *', 'tick', '{}', CASE WHEN g % 3 = 0 THEN 'paused' ELSE 'active' END,
         CASE WHEN g % 3 = 0 THEN $1::timestamptz - interval '1 day'
              ELSE $1::timestamptz + (g - 75) * interval '1 minute' END,
         $1, $1
       FROM generate_series(1, 20000) g`,
      [NOW],
    );
    // 100k tokens: 90% settled, the open ones mostly with a later timeout or none; 100 are due.
    await ctx.sql.query(
      `INSERT INTO ${ctx.table('waitpoint_tokens')} (id, job_id, status, timeout_at, created_at)
       SELECT 'wp_' || g, g, CASE WHEN g % 10 = 0 THEN 'waiting' WHEN g % 2 = 0 THEN 'completed' ELSE 'timed_out' END,
         CASE WHEN g % 10 = 0 AND g % 1000 = 0 THEN NULL
              WHEN g % 10 = 0 AND g <= 1000 THEN $1::timestamptz - interval '1 minute'
              WHEN g % 10 = 0 THEN $1::timestamptz + g * interval '1 second'
              ELSE $1::timestamptz - interval '1 day' END,
         $1
       FROM generate_series(1, 100000) g`,
      [NOW],
    );
    // 100k jobs: 2% waiting on a token, the rest pending or completed.
    await ctx.sql.query(
      `INSERT INTO ${ctx.table('job_queue')} (job_type, payload, status, run_at, created_at, updated_at, wait_token_id)
       SELECT 'type' || (g % 5), '{}', CASE WHEN g % 50 = 0 THEN 'waiting' WHEN g % 2 = 0 THEN 'pending' ELSE 'completed' END,
         $1, $1, $1, CASE WHEN g % 50 = 0 THEN 'wp_' || g END
       FROM generate_series(1, 100000) g`,
      [NOW],
    );
    for (const table of ['cron_schedules', 'waitpoint_tokens', 'job_queue'] as const) {
      await ctx.sql.query(`VACUUM ANALYZE ${ctx.table(table)}`);
    }
    jitAboveCost = Number((await ctx.sql.query('SHOW jit_above_cost')).rows[0].jit_above_cost);
  }, 120_000);

  it('reads due schedules from cron_schedules_due_idx, without JIT', async () => {
    const { plan, jit } = await explain(dueCronSchedulesSql(schemaNames(ctx.schema)), [NOW, 100]);
    expect(usesIndex(plan, 'cron_schedules_due_idx')).toBe(true);
    expect(seqScans(plan)).toEqual([]);
    expect(jit).toBe(false);
    expect(plan['Total Cost']).toBeLessThan(jitAboveCost);
  });

  it('returns the due schedules only, oldest due first', async () => {
    const due = await backendOf(ctx.queue()).getDueCronSchedules(NOW, 1000);
    expect(due).toHaveLength(50);
    expect(due.every((s) => s.status === 'active' && s.nextRunAt <= NOW)).toBe(true);
    const times = due.map((s) => s.nextRunAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('compares and sets slots by primary key, without scanning the schedules', async () => {
    const ids = [1, 2, 4];
    const slots = JSON.stringify(
      ids.map((id, i) => ({ i, schedule_id: id, expected: NOW.toISOString(), next_run_at: NOW.toISOString() })),
    );
    const { plan, jit } = await explain(casCronSlotsSql(schemaNames(ctx.schema)), [slots, NOW, ids]);
    expect(seqScans(plan)).toEqual([]);
    expect(jit).toBe(false);
  });

  it('finds timed-out tokens through waitpoint_tokens_timeout_idx, without JIT', async () => {
    const { plan, jit } = await explain(expireTokensSql(schemaNames(ctx.schema)), [NOW, 1000]);
    expect(usesIndex(plan, 'waitpoint_tokens_timeout_idx')).toBe(true);
    expect(seqScans(plan)).toEqual([]);
    expect(jit).toBe(false);
    expect(plan['Total Cost']).toBeLessThan(jitAboveCost);
  });

  it('finds the jobs a settled token resumes through job_queue_wait_token_idx, without JIT', async () => {
    const { plan, jit } = await explain(resumeTokenWaitersSql(schemaNames(ctx.schema)), [
      ['wp_50', 'wp_100', 'wp_7'],
      NOW,
      'c',
    ]);
    expect(usesIndex(plan, 'job_queue_wait_token_idx')).toBe(true);
    expect(seqScans(plan)).toEqual([]);
    expect(jit).toBe(false);
    expect(plan['Total Cost']).toBeLessThan(jitAboveCost);
  });
});
