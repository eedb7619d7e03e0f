/**
 * The overview (src/overview.ts) on PostgreSQL: job counts in one statement, the throughput
 * counters of migration 012. SQL in queries/overview.ts.
 */
import type { JobCountFacts, ThroughputFacts } from '../../overview.js';
import type { JobStatus } from '../../types.js';
import type { PostgresContext } from './context.js';

async function countPerStatus(ctx: PostgresContext, { limit }: { limit: number }): Promise<JobCountFacts> {
  const { rows } = await ctx.conn.query<{ status: JobStatus; job_type: string; n: string }>(
    ctx.sql.countPerStatus,
    [limit],
    true,
  );
  const facts: JobCountFacts = { byStatus: {}, byType: [] };
  for (const row of rows) {
    const count = Number(row.n);
    facts.byStatus[row.status] = (facts.byStatus[row.status] ?? 0) + count;
    facts.byType.push({ status: row.status, jobType: row.job_type, count });
  }
  return facts;
}

async function getThroughput(ctx: PostgresContext, { from, to }: { from: Date; to: Date }): Promise<ThroughputFacts> {
  const { rows } = await ctx.conn.query<{ minute: Date; completed: string; failed: string }>(
    ctx.sql.throughput,
    [from, to],
    true,
  );
  return rows.map((r) => ({ minute: r.minute, completed: Number(r.completed), failed: Number(r.failed) }));
}

async function trimThroughput(ctx: PostgresContext, { olderThan }: { olderThan: Date }): Promise<number> {
  const { rows } = await ctx.conn.query<{ n: number }>(ctx.sql.trimThroughput, [olderThan]);
  return rows[0]?.n ?? 0;
}

export const overviewOperations = { countPerStatus, getThroughput, trimThroughput };
