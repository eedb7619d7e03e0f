/**
 * Processing (SPEC §4.6) on PostgreSQL: claim, complete, fail, the fenced writes of a running
 * handler and the processor's lease check. SQL in queries/processing.ts and queries/leases.ts.
 */
import type { ClaimInput, CompleteInput, FailInput, FailResult } from '../../backend.js';
import type { PostgresContext } from './context.js';
import { cascade, idsOfKind, type KindRow } from './manage.js';
import { groupClaimLockSql } from './queries/processing.js';
import { rowToJob, toId, type JobRow } from './rows.js';
import type { JobRecord } from '../../types.js';

async function claimJobs(
  ctx: PostgresContext,
  { workerId, batchSize, jobTypes, groupConcurrency, now, jobId }: ClaimInput,
): Promise<JobRecord[]> {
  if (batchSize <= 0) return [];
  const byType = jobTypes !== undefined && jobTypes.length > 0;
  if (jobId !== undefined) {
    // The job a wake-up announced, when the ordered claim would take it first: its row only.
    const hinted = [now, workerId, jobId, byType ? jobTypes : null, groupConcurrency ?? null];
    const { rows } = await ctx.conn.query<JobRow>(ctx.sql.claimJobById, hinted, true);
    if (rows.length > 0) return rows.map(rowToJob);
  }
  const values = [now, workerId, batchSize, byType ? jobTypes : null, groupConcurrency ?? null];
  const text = byType ? ctx.sql.claimJobsByType : ctx.sql.claimJobs;
  if (groupConcurrency === undefined) {
    const { rows } = await ctx.conn.query<JobRow>(text, values, true);
    return rows.map(rowToJob);
  }
  // Group limits hold across processes only if claims of this schema take turns: each one
  // must count the group's processing jobs after the previous claim committed.
  return ctx.conn.transaction(async (tx) => {
    await tx.query(`SET LOCAL jit = off; ${groupClaimLockSql(ctx.groupLockKey)}`);
    const { rows } = await tx.query(text, values);
    return (rows as JobRow[]).map(rowToJob);
  });
}

/** A refusal of the values (SQLSTATE 22/23) becomes StoreRejectedError at the seam (store-errors.ts). */
async function completeJobs(ctx: PostgresContext, completions: CompleteInput[], now: Date): Promise<number[]> {
  if (completions.length === 0) return [];
  const input = completions.map((c) => ({
    job_id: c.jobId,
    worker_id: c.workerId,
    has_output: c.output !== undefined,
    output: c.output === undefined ? null : c.output,
  }));
  const { rows } = await ctx.conn.query<{ id: string }>(
    ctx.sql.completeJobs,
    [JSON.stringify(input), now, ctx.names.channel],
    true,
  );
  return rows.map((r) => toId(r.id));
}

async function failJob(
  ctx: PostgresContext,
  { jobId, workerId, message, reason, retryAt, now }: FailInput,
): Promise<FailResult | null> {
  if (retryAt !== null) {
    const values = [jobId, workerId, message, reason, retryAt, now, now.toISOString(), ctx.names.channel];
    const { rows } = await ctx.conn.query(ctx.sql.failJobForRetry, values, true);
    return rows.length > 0 ? { deadLetterJobId: null, cascaded: [] } : null;
  }
  return ctx.conn.transaction(async (tx) => {
    const { rows } = await tx.query(ctx.sql.failJobFinal, [
      jobId,
      workerId,
      message,
      reason,
      now,
      now.toISOString(),
      ctx.names.channel,
    ]);
    if (!(rows as KindRow[]).some((r) => r.kind === 'failed')) return null;
    return {
      deadLetterJobId: idsOfKind(rows as KindRow[], 'dead_letter')[0] ?? null,
      cascaded: await cascade(ctx, tx, [jobId], now),
    };
  });
}

type Fenced = { jobId: number; workerId: string; now: Date };

async function prolongJob(
  ctx: PostgresContext,
  { jobId, workerId, timeoutMs, now }: Fenced & { timeoutMs: number | null },
): Promise<boolean> {
  const { rows } = await ctx.conn.query(ctx.sql.prolongJob, [jobId, workerId, now, timeoutMs]);
  return rows.length > 0;
}

async function setProgress(
  ctx: PostgresContext,
  { jobId, workerId, progress, now }: Fenced & { progress: number },
): Promise<boolean> {
  const { rows } = await ctx.conn.query(ctx.sql.setProgress, [jobId, workerId, progress, now]);
  return rows.length > 0;
}

async function setOutput(
  ctx: PostgresContext,
  { jobId, workerId, output, now }: Fenced & { output: unknown },
): Promise<boolean> {
  const { rows } = await ctx.conn.query(ctx.sql.setOutput, [jobId, workerId, JSON.stringify(output ?? null), now]);
  return rows.length > 0;
}

async function heldJobIds(
  ctx: PostgresContext,
  { workerId, jobIds }: { workerId: string; jobIds: number[] },
): Promise<number[]> {
  if (jobIds.length === 0) return [];
  const { rows } = await ctx.conn.query<{ id: string }>(ctx.sql.heldJobIds, [jobIds, workerId], true);
  return rows.map((r) => toId(r.id));
}

export const processingOperations = {
  claimJobs,
  completeJobs,
  failJob,
  prolongJob,
  setProgress,
  setOutput,
  heldJobIds,
};
