/**
 * A keyset page (queryJobsPage's `after`, the listing's `before`) deep in a table of 50,000 jobs
 * reads about what the first page reads, with table statistics stale (right after a bulk insert,
 * before ANALYZE) and fresh: an index range read from the cursor on. The same page by offset
 * reads and throws away every job before it, which at a million jobs took a second (offset
 * 900,000) and, with a `jobType` filter, 156 ms (offset 45,000). Work is the rows every plan
 * node produced or threw away, times its loops, and the buffers read (EXPLAIN ANALYZE, BUFFERS).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { JobQuery } from '../../src/backend.js';
import { INDEX_READS } from '../../src/backends/postgres/index-walk.js';
import { listJobsSql, prefixTypesSql } from '../../src/backends/postgres/queries/list.js';
import { schemaNames } from '../../src/backends/postgres/queries/names.js';
import { usePostgres } from './support.js';
import { rowWork, type PlanNode } from './plans.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
const JOBS = 50_000;
const PAGE = 50;
/** How many matching jobs the deep page leaves below it: it is near the end of every listing. */
const LEFT_BELOW = 2 * PAGE;

const listings: Record<string, JobQuery> = {
  'no filter': {},
  status: { status: 'pending' },
  jobType: { filter: { jobType: 'report' } },
  'status and jobType': { status: 'pending', filter: { jobType: 'sync' } },
  priority: { filter: { priority: 3 } },
  'tags all': { filter: { tags: { values: ['tenant:3'], mode: 'all' } } },
  'tags none': { filter: { tags: { values: ['tenant:3'], mode: 'none' } } },
  jobTypePrefix: { filter: { jobTypePrefix: 'web' } },
};

interface Cost {
  rows: number;
  buffers: number;
}

describe('keyset page plans (postgres)', () => {
  const ctx = usePostgres({ truncate: false });

  /** JOBS jobs: four types, five priorities, two tags each (`tenant:*` of 50), a tenth cancelled. */
  async function fill(): Promise<void> {
    await ctx.sql.query(
      `INSERT INTO "${ctx.schema}".job_queue (job_type, payload, status, priority, tags, run_at, created_at, updated_at)
       SELECT (ARRAY['email', 'report', 'sync', 'webhook'])[g % 4 + 1], '{}',
         CASE WHEN g % 10 = 1 THEN 'cancelled' WHEN g % 20 = 0 THEN 'completed' ELSE 'pending' END,
         g % 5, ARRAY['tenant:' || g % 50, 'user:' || g % 10000], $1::timestamptz, $1::timestamptz, $1::timestamptz
       FROM generate_series(1, $2::integer) g`,
      [NOW, JOBS],
    );
  }

  /** The listing's statement as the backend sends it: a type prefix read as its types first. */
  async function pageSql(query: JobQuery): Promise<{ text: string; values: unknown[]; indexReads?: boolean }> {
    const t = schemaNames(ctx.schema);
    const prefix = query.filter?.jobTypePrefix;
    if (prefix === undefined) return listJobsSql(t, query);
    const { rows } = await ctx.sql.query<{ job_type: string }>(prefixTypesSql(t), [prefix, 1000]);
    return listJobsSql(
      t,
      query,
      rows.map((r) => r.job_type),
    );
  }

  /** The ids of a page, read as the backend reads it. */
  async function pageIds(query: JobQuery): Promise<number[]> {
    const { text, values } = await pageSql(query);
    const { rows } = await ctx.sql.query<{ id: string }>(text, values);
    return rows.map((r) => Number(r.id));
  }

  async function cost(query: JobQuery): Promise<Cost> {
    const { text, values, indexReads } = await pageSql(query);
    const client = await ctx.sql.connect();
    try {
      await client.query(indexReads ? `BEGIN; ${INDEX_READS}` : 'BEGIN');
      const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values);
      await client.query('COMMIT');
      const plan = (rows[0] as { 'QUERY PLAN': { Plan: PlanNode }[] })['QUERY PLAN'][0]!.Plan;
      return { rows: rowWork(plan), buffers: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0) };
    } finally {
      client.release();
    }
  }

  /** Where each listing's deep page starts: the id after which LEFT_BELOW + PAGE matches are left. */
  const deep: Record<string, { before: number; offset: number }> = {};

  /** The first page, the deep page by cursor and the same page by offset, of every listing. */
  async function measure(): Promise<Record<string, { first: Cost; cursor: Cost; offset: Cost }>> {
    const out: Record<string, { first: Cost; cursor: Cost; offset: Cost }> = {};
    for (const [name, query] of Object.entries(listings)) {
      const { before, offset } = deep[name]!;
      out[name] = {
        first: await cost({ ...query, limit: PAGE }),
        cursor: await cost({ ...query, limit: PAGE, before }),
        offset: await cost({ ...query, limit: PAGE, offset }),
      };
    }
    return out;
  }

  function expectCursorLikeFirst(costs: Record<string, { first: Cost; cursor: Cost; offset: Cost }>): void {
    for (const [name, c] of Object.entries(costs)) {
      // About the first page's work: twice it, and a little for the index levels above the cursor.
      expect(c.cursor.rows, `${name}: rows of the deep cursor page`).toBeLessThanOrEqual(2 * c.first.rows + 100);
      expect(c.cursor.buffers, `${name}: buffers of the deep cursor page`).toBeLessThanOrEqual(
        2 * c.first.buffers + 20,
      );
    }
    // What the cursor saves: the same page by offset reads every job before it.
    for (const name of ['no filter', 'status', 'jobType']) {
      const c = costs[name]!;
      expect(c.offset.rows, `${name}: rows of the deep offset page`).toBeGreaterThan(10 * c.cursor.rows);
    }
  }

  let stale: Record<string, { first: Cost; cursor: Cost; offset: Cost }>;

  beforeAll(async () => {
    await fill();
    for (const [name, query] of Object.entries(listings)) {
      const all = await pageIds(query);
      const at = all.length - LEFT_BELOW - PAGE - 1;
      deep[name] = { before: all[at]!, offset: at + 1 };
    }
    // Right after the bulk insert: before autovacuum's ANALYZE has run.
    stale = await measure();
  }, 120_000);

  it('a deep cursor page holds the same jobs as the page at that offset', async () => {
    for (const [name, query] of Object.entries(listings)) {
      const { before, offset } = deep[name]!;
      const byCursor = await pageIds({ ...query, limit: PAGE, before });
      expect(byCursor, name).toHaveLength(PAGE);
      expect(byCursor, name).toEqual(await pageIds({ ...query, limit: PAGE, offset }));
    }
  });

  it('reads about what the first page reads, before ANALYZE', () => {
    expectCursorLikeFirst(stale);
  });

  it('and after ANALYZE', async () => {
    await ctx.sql.query(`ANALYZE "${ctx.schema}".job_queue`);
    expectCursorLikeFirst(await measure());
  }, 60_000);
});
