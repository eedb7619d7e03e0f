/**
 * Finding jobs on PostgreSQL: why pending jobs are held (one statement for a page of jobs) and
 * the distinct job types (a loose index scan, queries/list.ts prefixTypesSql).
 */
import type { JobHoldReason } from '../../types.js';
import type { PostgresContext } from './context.js';
import { holdReasonsSql } from './queries/find.js';
import { prefixTypesSql } from './queries/list.js';

async function getHoldReasons(
  ctx: PostgresContext,
  { jobIds, now }: { jobIds: number[]; now: Date },
): Promise<(JobHoldReason | null)[]> {
  if (jobIds.length === 0) return [];
  const { rows } = await ctx.conn.query<{ reason: JobHoldReason | null }>(holdReasonsSql(ctx.names), [jobIds, now]);
  return rows.map((r) => r.reason);
}

async function getJobTypes(ctx: PostgresContext, input: { prefix: string; limit: number }): Promise<string[]> {
  const { rows } = await ctx.conn.query<{ job_type: string }>(prefixTypesSql(ctx.names), [input.prefix, input.limit]);
  return rows.map((r) => r.job_type);
}

export const findOperations = { getHoldReasons, getJobTypes };
