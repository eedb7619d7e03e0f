/**
 * Finding jobs on PostgreSQL: why pending jobs are held (one statement for a page of jobs).
 */
import type { JobHoldReason } from '../../types.js';
import type { PostgresContext } from './context.js';
import { holdReasonsSql } from './queries/find.js';

async function getHoldReasons(
  ctx: PostgresContext,
  { jobIds, now }: { jobIds: number[]; now: Date },
): Promise<(JobHoldReason | null)[]> {
  if (jobIds.length === 0) return [];
  const { rows } = await ctx.conn.query<{ reason: JobHoldReason | null }>(holdReasonsSql(ctx.names), [jobIds, now]);
  return rows.map((r) => r.reason);
}

export const findOperations = { getHoldReasons };
