/**
 * A first page of a listing costs the same at 10,000 and at 200,000 jobs, with any filter,
 * right after a bulk insert (before autovacuum's ANALYZE, when the planner takes every
 * condition for rare) and after ANALYZE: the rows every plan node produced or threw away, times
 * its loops, and the buffers read, from EXPLAIN (ANALYZE, BUFFERS), stay under bounds that do
 * not depend on the table's size. Right after the insert, a rare tag used to walk the whole
 * primary key, and pending jobs of one type used to intersect two bitmaps of most of the table.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { JobQuery } from '../../src/backend.js';
import { RECENT_WINDOW, listJobsSql, prefixTypesSql } from '../../src/backends/postgres/queries/list.js';
import { schemaNames } from '../../src/backends/postgres/queries/names.js';
import { INDEX_READS } from '../../src/backends/postgres/index-walk.js';
import { usePostgres } from './support.js';
import { rowWork, type PlanNode } from './plans.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
const HOUR = 3_600_000;
const SMALL = 10_000;
const LARGE = 200_000;
/** Jobs carrying the tag `rare`, at any size. */
const RARE = 20;
const PAGE = 50;
/**
 * Work allowed for one page, at any size: the newest RECENT_WINDOW jobs looked through (each
 * counted by the scan, the limit above it and the filter), then a rare tag's matches.
 */
const MAX_ROWS = 8 * RECENT_WINDOW;
const MAX_BUFFERS = RECENT_WINDOW;

const pages: Record<string, JobQuery> = {
  'no filter': {},
  'status pending': { status: 'pending' },
  jobType: { filter: { jobType: 'report' } },
  priority: { filter: { priority: 3 } },
  'runAt range': {
    filter: { runAt: { gte: new Date(NOW.getTime() + 100 * HOUR), lt: new Date(NOW.getTime() + 110 * HOUR) } },
  },
  'tags any, rare': { filter: { tags: { values: ['rare', 'user:none'], mode: 'any' } } },
  'tags any, common': { filter: { tags: { values: ['tenant:3', 'tenant:4'], mode: 'any' } } },
  'tags all, rare': { filter: { tags: { values: ['rare', 'tenant:7'], mode: 'all' } } },
  'tags all, common': { filter: { tags: { values: ['tenant:3'], mode: 'all' } } },
  'tags exact': { filter: { tags: { values: ['tenant:3', 'user:3'], mode: 'exact' } } },
  'tags none': { filter: { tags: { values: ['tenant:3'], mode: 'none' } } },
  'status and jobType': { status: 'pending', filter: { jobType: 'sync' } },
  'status and priority': { status: 'cancelled', filter: { priority: 1 } },
  'status and rare tag': { status: 'pending', filter: { tags: { values: ['rare'], mode: 'all' } } },
  'jobTypePrefix, common': { filter: { jobTypePrefix: 'web' } },
  'jobTypePrefix, rare': { filter: { jobTypePrefix: 'rare.' } },
  'status and jobTypePrefix': { status: 'cancelled', filter: { jobTypePrefix: 're' } },
  'jobTypePrefix and rare tag': { filter: { jobTypePrefix: 'e', tags: { values: ['rare'], mode: 'all' } } },
  'tags any, common, second page': {
    filter: { tags: { values: ['tenant:3', 'tenant:4'], mode: 'any' } },
    offset: PAGE,
  },
};

type Cost = Record<string, { rows: number; buffers: number }>;

describe('listing plans (postgres)', () => {
  const ctx = usePostgres({ schemas: 1, truncate: false });
  const small = () => ctx.schema;
  const large = () => ctx.extraSchemas[0]!;

  /**
   * `n` jobs in the shape of the scale benchmark: four types, five priorities, run times over 30
   * days, two tags each (`tenant:*` of 50, `user:*` of 10,000), mostly pending, a tenth
   * cancelled, some completed or failed; the tag `rare` on RARE of them, and the type
   * `rare.kind` on RARE others, spread out.
   */
  async function fill(schema: string, n: number): Promise<void> {
    await ctx.sql.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, status, priority, tags, run_at, created_at, updated_at)
       SELECT CASE WHEN g % ($2::integer / ${String(RARE)}) = 3 THEN 'rare.kind'
           ELSE (ARRAY['email', 'report', 'sync', 'webhook'])[g % 4 + 1] END, '{}',
         CASE WHEN g % 10 = 1 THEN 'cancelled' WHEN g % 80 = 0 THEN 'failed' WHEN g % 20 = 0 THEN 'completed'
           ELSE 'pending' END,
         g % 5,
         ARRAY['tenant:' || g % 50, 'user:' || g % 10000]
           || CASE WHEN g % ($2::integer / ${String(RARE)}) = 7 THEN ARRAY['rare'] ELSE '{}' END,
         $1::timestamptz + (g % 720) * interval '1 hour', $1::timestamptz, $1::timestamptz
       FROM generate_series(1, $2::integer) g`,
      [NOW, n],
    );
  }

  /** The listing's statement as the backend sends it: a type prefix read as its types first. */
  async function pageSql(
    schema: string,
    query: JobQuery,
  ): Promise<{ text: string; values: unknown[]; indexReads?: boolean }> {
    const t = schemaNames(schema);
    const prefix = query.filter?.jobTypePrefix;
    if (prefix === undefined) return listJobsSql(t, query);
    const { rows } = await ctx.sql.query<{ job_type: string }>(prefixTypesSql(t), [prefix, 1000]);
    return listJobsSql(
      t,
      query,
      rows.map((r) => r.job_type),
    );
  }

  async function measure(schema: string): Promise<Cost> {
    const cost: Cost = {};
    for (const [name, query] of Object.entries(pages)) {
      const { text, values, indexReads } = await pageSql(schema, { ...query, limit: PAGE });
      // Planned as the backend runs it: with INDEX_READS when the statement asks for them.
      const client = await ctx.sql.connect();
      let rows: unknown[];
      try {
        await client.query(indexReads ? `BEGIN; ${INDEX_READS}` : 'BEGIN');
        ({ rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, values));
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      const plan = (rows[0] as { 'QUERY PLAN': { Plan: PlanNode }[] })['QUERY PLAN'][0]!.Plan;
      cost[name] = {
        rows: rowWork(plan),
        buffers: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0),
      };
    }
    return cost;
  }

  function expectBounded(sizes: { small: Cost; large: Cost }): void {
    for (const [size, cost] of Object.entries(sizes)) {
      for (const [name, c] of Object.entries(cost)) {
        expect(c.rows, `${size}, ${name}: rows of work`).toBeLessThanOrEqual(MAX_ROWS);
        expect(c.buffers, `${size}, ${name}: buffers`).toBeLessThanOrEqual(MAX_BUFFERS);
      }
    }
  }

  let stale: { small: Cost; large: Cost };

  beforeAll(async () => {
    await fill(small(), SMALL);
    await fill(large(), LARGE);
    // Right after the bulk insert: before autovacuum's ANALYZE has run.
    stale = { small: await measure(small()), large: await measure(large()) };
  }, 180_000);

  it('returns the same pages as a plain sorted read of every match', async () => {
    for (const schema of [small(), large()]) {
      for (const [name, query] of Object.entries(pages)) {
        const page = await pageSql(schema, { ...query, limit: PAGE });
        const all = await pageSql(schema, { ...query, limit: undefined, offset: undefined });
        const { rows: got } = await ctx.sql.query<{ id: string }>(page.text, page.values);
        const { rows: want } = await ctx.sql.query<{ id: string }>(
          `SELECT r.id FROM (${all.text}) r ORDER BY r.id DESC OFFSET ${String(query.offset ?? 0)} LIMIT ${String(PAGE)}`,
          all.values,
        );
        expect(
          got.map((r) => r.id),
          `${schema} ${name}`,
        ).toEqual(want.map((r) => r.id));
      }
    }
  }, 60_000);

  it('reads a first page in bounded work at 10,000 and 200,000 jobs, before ANALYZE', () => {
    expectBounded(stale);
  });

  it('and after ANALYZE', async () => {
    await ctx.sql.query(`ANALYZE "${small()}".job_queue`);
    await ctx.sql.query(`ANALYZE "${large()}".job_queue`);
    expectBounded({ small: await measure(small()), large: await measure(large()) });
  }, 60_000);
});
