/**
 * The cost of recording a batch of completions does not grow with the pending jobs: its wake-up
 * hint (is a job waiting on a job just completed?) reads only the jobs that have dependencies.
 * Nor does the cost of recording a batch of failures, with a retry to come or final, whose
 * input is joined with the jobs by id. Measured as buffers of EXPLAIN (ANALYZE, BUFFERS) of the
 * generic plan (as the prepared statement runs it) at 1,000 and at 50,000 pending jobs, right
 * after they were added (statistics from before, when few jobs were pending) and after ANALYZE.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { schemaNames } from '../../src/backends/postgres/queries/names.js';
import {
  completeJobsSql,
  failJobsFinalSql,
  failJobsForRetrySql,
} from '../../src/backends/postgres/queries/processing.js';
import { usePostgres } from './support.js';

interface PlanNode {
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
}

interface Cost {
  buffers: number;
}

const NOW = new Date('2030-01-01T00:00:00.000Z');
const BATCH = 10;

describe('completion cost with many pending jobs (postgres)', () => {
  const ctx = usePostgres({ schemas: 2, truncate: false });

  /**
   * A queue that has run for a while (2,000 completed jobs, analyzed), then a burst of `pending`
   * jobs without dependencies, and BATCH jobs processing by worker `w`.
   */
  async function fill(schema: string, pending: number): Promise<void> {
    await ctx.sql.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, status, run_at, created_at, updated_at, completed_at)
       SELECT 't', '{}', 'completed', $1::timestamptz, $1::timestamptz, $1::timestamptz, $1::timestamptz
       FROM generate_series(1, 2000)`,
      [NOW],
    );
    await ctx.sql.query(`ANALYZE "${schema}".job_queue`);
    await ctx.sql.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, run_at, created_at, updated_at)
       SELECT 't', '{}', $1::timestamptz, $1::timestamptz, $1::timestamptz FROM generate_series(1, $2::integer)`,
      [NOW, pending],
    );
    await ctx.sql.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, status, run_at, created_at, updated_at, locked_at, locked_by)
       SELECT 't', '{}', 'processing', $1::timestamptz, $1::timestamptz, $1::timestamptz, $1::timestamptz, 'w'
       FROM generate_series(1, ${String(BATCH)})`,
      [NOW],
    );
  }

  /** The statements measured: each records an outcome of the BATCH processing jobs, given their ids. */
  const STATEMENTS = {
    completion: {
      sql: completeJobsSql,
      input: (id: string) => ({ job_id: id, worker_id: 'w', has_output: false, output: null }),
    },
    'failure with a retry': {
      sql: failJobsForRetrySql,
      input: (id: string) => ({ ...failure(id), retry_at: NOW.toISOString() }),
    },
    'final failure': { sql: failJobsFinalSql, input: (id: string) => ({ ...failure(id), retry_at: null }) },
  };
  type Statement = keyof typeof STATEMENTS;
  const failure = (id: string) => ({
    job_id: id,
    worker_id: 'w',
    message: 'm',
    reason: 'handler_error',
    stack: 'Error: m',
  });

  /** One run of `statement` on the BATCH processing jobs, with the generic plan, measured and rolled back. */
  async function recordCost(schema: string, statement: Statement): Promise<Cost> {
    const { sql, input } = STATEMENTS[statement];
    const client = await ctx.sql.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
      // Completions take (jsonb, now, channel); failures (jsonb, now, now as text, channel).
      const types = statement === 'completion' ? 'jsonb, timestamptz, text' : 'jsonb, timestamptz, text, text';
      await client.query(`PREPARE record_probe(${types}) AS ${sql(schemaNames(schema))}`);
      const { rows: ids } = await client.query(
        `SELECT id FROM "${schema}".job_queue WHERE status = 'processing' ORDER BY id`,
      );
      const now = client.escapeLiteral(NOW.toISOString());
      // EXECUTE takes no bind parameters: the values are written as literals.
      const json = client.escapeLiteral(JSON.stringify(ids.map((r: { id: string }) => input(r.id))));
      const args = statement === 'completion' ? `${json}, ${now}, 'probe'` : `${json}, ${now}, ${now}, 'probe'`;
      const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE record_probe(${args})`);
      const plan = rows[0]['QUERY PLAN'][0].Plan as PlanNode;
      return { buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'] };
    } finally {
      await client.query('ROLLBACK');
      await client.query('DEALLOCATE ALL'); // PREPARE is not undone by the rollback
      client.release();
    }
  }

  /** Each statement's cost at 1,000 and at 50,000 pending jobs. */
  async function costs(): Promise<Record<Statement, { small: Cost; large: Cost }>> {
    const measured = {} as Record<Statement, { small: Cost; large: Cost }>;
    for (const statement of Object.keys(STATEMENTS) as Statement[]) {
      measured[statement] = {
        small: await recordCost(small(), statement),
        large: await recordCost(large(), statement),
      };
    }
    return measured;
  }

  const small = () => ctx.schema;
  const large = () => ctx.extraSchemas[0]!;
  let stale: Record<Statement, { small: Cost; large: Cost }>;

  beforeAll(async () => {
    await fill(small(), 1_000);
    await fill(large(), 50_000);
    // Right after the bulk insert: before autovacuum's ANALYZE has run.
    stale = await costs();
  }, 120_000);

  function expectFlat(measured: Record<Statement, { small: Cost; large: Cost }>): void {
    // Walking the pending jobs through job_queue_status_idx read ~2,500 pages at 50,000; each
    // statement reads 160 to 220 buffers at either size when measured.
    for (const [statement, { small: atSmall, large: atLarge }] of Object.entries(measured)) {
      expect(atLarge.buffers, JSON.stringify({ statement, atSmall, atLarge })).toBeLessThanOrEqual(
        2 * atSmall.buffers + 50,
      );
    }
  }

  it('reads as much with 50,000 pending jobs as with 1,000, before ANALYZE', () => {
    expectFlat(stale);
  });

  it('still tells when a pending job depends on a completed one, by id or by tag', async () => {
    const hint = async (ids: string[], tags: string[]) =>
      (
        await ctx.sql.query<{ hint: boolean }>(
          `SELECT "${large()}".job_queue_has_pending_dependents($1::bigint[], $2::text[]) AS hint`,
          [ids, tags],
        )
      ).rows[0]!.hint;
    const { rows } = await ctx.sql.query<{ id: string }>(
      `INSERT INTO "${large()}".job_queue (job_type, payload, depends_on_job_ids, depends_on_tags, run_at, created_at, updated_at)
       VALUES ('t', '{}', ARRAY[424242424]::bigint[], NULL, $1, $1, $1), ('t', '{}', NULL, ARRAY['hint-tag'], $1, $1, $1)
       RETURNING id`,
      [NOW],
    );
    try {
      expect(await hint(['424242424'], [])).toBe(true);
      expect(await hint(['1'], ['hint-tag'])).toBe(true);
      expect(await hint(['1'], ['other'])).toBe(false);
    } finally {
      await ctx.sql.query(`DELETE FROM "${large()}".job_queue WHERE id = ANY($1::bigint[])`, [rows.map((r) => r.id)]);
    }
  });

  it('reads as much with 50,000 pending jobs as with 1,000, after ANALYZE', async () => {
    await ctx.sql.query(`ANALYZE "${small()}".job_queue`);
    await ctx.sql.query(`ANALYZE "${large()}".job_queue`);
    expectFlat(await costs());
  });

  it('reads as much after 20,000 jobs went through processing since the last VACUUM', async () => {
    // A table that autovacuum leaves alone, as a busy one is between two of its runs.
    const schema = ctx.extraSchemas[1]!;
    const jobs = `"${schema}".job_queue`;
    await ctx.sql.query(`ALTER TABLE ${jobs} SET (autovacuum_enabled = false)`);
    const insert = (status: string, lock: boolean) =>
      ctx.sql.query(
        `INSERT INTO ${jobs} (job_type, payload, status, run_at, created_at, updated_at, locked_at, locked_by)
         SELECT 'drained', '{}', $2, $1::timestamptz, $1::timestamptz, $1::timestamptz,
           CASE WHEN $3 THEN $1::timestamptz END, CASE WHEN $3 THEN 'other' END
         FROM generate_series(1, 20000)`,
        [NOW, status, lock],
      );
    // 20,000 jobs that ended without a row version of theirs being processing, and BATCH jobs
    // processing by `w`.
    await insert('completed', false);
    await ctx.sql.query(
      `INSERT INTO ${jobs} (job_type, payload, status, run_at, created_at, updated_at, locked_at, locked_by)
       SELECT 't', '{}', 'processing', $1::timestamptz, $1::timestamptz, $1::timestamptz, $1::timestamptz, 'w'
       FROM generate_series(1, ${String(BATCH)})`,
      [NOW],
    );
    const before = {} as Record<Statement, Cost>;
    for (const statement of Object.keys(STATEMENTS) as Statement[])
      before[statement] = await recordCost(schema, statement);
    // 20,000 more, claimed and then completed: each processing row version leaves its entries in
    // the indexes of processing jobs, dead once the job completed, until a VACUUM.
    await insert('processing', true);
    await ctx.sql.query(
      `UPDATE ${jobs} SET status = 'completed', completed_at = $1, locked_at = NULL, locked_by = NULL
       WHERE job_type = 'drained' AND status = 'processing'`,
      [NOW],
    );
    for (const statement of Object.keys(STATEMENTS) as Statement[]) {
      const after = await recordCost(schema, statement);
      // A bitmap scan of job_queue_locked_at_idx read them all: a completion of 10 read 534
      // buffers, 164 before, when measured.
      expect(after.buffers, JSON.stringify({ statement, before: before[statement], after })).toBeLessThanOrEqual(
        2 * before[statement].buffers + 50,
      );
    }
  });
});
