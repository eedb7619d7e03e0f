/**
 * Processing (SPEC §4.6) on PostgreSQL: claim, complete, fail, the fenced writes of a running
 * handler and the processor's lease check. SQL in queries/processing.ts and queries/leases.ts.
 */
import type { ClaimInput, ClaimedJob, CompleteInput, FailInput, FailResult } from '../../backend.js';
import type { PostgresContext } from './context.js';
import type { Transaction } from './connection.js';
import { cascade, type Cascaded } from './manage.js';
import { claimWindow, groupClaimLockSql } from './queries/processing.js';
import { rowToClaimedJob, toId, type ClaimedJobRow } from './rows.js';

async function claimJobs(ctx: PostgresContext, input: ClaimInput): Promise<ClaimedJob[]> {
  const { workerId, batchSize, jobTypes, groupConcurrency, now, jobId } = input;
  if (jobId !== undefined && batchSize > 0) {
    // The job a wake-up announced, when the ordered claim would take it first: its row only.
    const types = jobTypes !== undefined && jobTypes.length > 0 ? jobTypes : null;
    const hinted = [now, workerId, jobId, types, groupConcurrency ?? null];
    const { rows } = await ctx.conn.query<ClaimedJobRow>(ctx.sql.claimJobById, hinted, true);
    if (rows.length > 0) return rows.map(rowToClaimedJob);
  }
  // A claim that passed over jobs and fell short looks again past them: jobs it parked (blocked,
  // migration 006), or left for the limit of a group it claimed for, which is full by the next
  // round. Each such round parks a job or claims one, so the rounds end, and their cost is that
  // of the jobs parked.
  const claimed: ClaimedJob[] = [];
  let window: number | undefined;
  for (;;) {
    const wanted = batchSize - claimed.length;
    window = claimWindow(wanted, window);
    const round = await claimRound(ctx, { ...input, batchSize: wanted }, window);
    claimed.push(...round.jobs);
    if (round.passedOver === 0 || claimed.length >= batchSize) return claimed;
  }
}

async function claimRound(
  ctx: PostgresContext,
  { workerId, batchSize, jobTypes, groupConcurrency, now }: ClaimInput,
  window: number,
): Promise<{ jobs: ClaimedJob[]; passedOver: number }> {
  if (batchSize <= 0) return { jobs: [], passedOver: 0 };
  const byType = jobTypes !== undefined && jobTypes.length > 0;
  const values = [now, workerId, batchSize, byType ? jobTypes : null, groupConcurrency ?? null, window];
  const result = (rows: ClaimRow[]) => ({
    jobs: rows.filter((r): r is ClaimRow & ClaimedJobRow => r.id !== null).map(rowToClaimedJob),
    passedOver: Number(rows[0]?.passed_over ?? 0),
  });
  if (groupConcurrency === undefined) {
    const { rows } = await ctx.conn.query<ClaimRow>(ctx.sql.claimJobs, values, true);
    return result(rows);
  }
  // Group limits hold across processes only if claims of this schema take turns: each one
  // must count the group's processing jobs after the previous claim committed. The statement
  // is prepared and keeps its generic plan: the group checks make that plan look dearer than one
  // for the values, so PostgreSQL would otherwise plan every claim again, which cost more than
  // running it. Its plan reads the lanes and the rows by their indexes and addresses whatever the
  // values, as the one without group checks does.
  return ctx.conn.transaction(
    async (tx) => {
      const { rows } = await tx.query<ClaimRow>(ctx.sql.claimJobsGrouped, values, true);
      return result(rows);
    },
    `SET LOCAL jit = off; SET LOCAL plan_cache_mode = force_generic_plan; ${groupClaimLockSql(ctx.groupLockKey)}`,
  );
}

/** A claimed job with the count of jobs the claim passed over; job columns NULL when none was claimed. */
type ClaimRow = Omit<ClaimedJobRow, 'id'> & { id: ClaimedJobRow['id'] | null; passed_over: string };

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

/**
 * Failures with a retry to come are one statement, committed on its own. Final failures are
 * one statement too, and their cascade follows in its transaction, level by level (manage.ts),
 * with the retries of the same call. A refusal of the values (SQLSTATE 22/23) becomes
 * StoreRejectedError at the seam (store-errors.ts).
 */
async function failJobs(ctx: PostgresContext, failures: FailInput[], now: Date): Promise<(FailResult | null)[]> {
  if (failures.length === 0) return [];
  const toRow = (f: FailInput) => ({
    job_id: f.jobId,
    worker_id: f.workerId,
    message: f.message,
    reason: f.reason,
    retry_at: f.retryAt,
    stack: f.stack ?? null,
  });
  const retries = failures.filter((f) => f.retryAt !== null).map(toRow);
  const finals = failures.filter((f) => f.retryAt === null).map(toRow);
  const params = (rows: ReturnType<typeof toRow>[]) => [
    JSON.stringify(rows),
    now,
    now.toISOString(),
    ctx.names.channel,
  ];
  const results = new Map<number, FailResult>();
  const failRetries = async (conn: Pick<Transaction, 'query'>) => {
    if (retries.length === 0) return;
    const { rows } = await conn.query<{ id: string }>(ctx.sql.failJobsForRetry, params(retries), true);
    for (const r of rows) results.set(toId(r.id), { deadLetterJobId: null, cascaded: [] });
  };
  if (finals.length === 0) {
    await failRetries(ctx.conn);
  } else {
    await ctx.conn.transaction(async (tx) => {
      await failRetries(tx);
      const { rows } = await tx.query<{ kind: string; id: string; dl_id: string | null }>(
        ctx.sql.failJobsFinal,
        params(finals),
        true,
      );
      const ended = rows.filter((r) => r.kind === 'failed');
      const endedIds = ended.map((r) => toId(r.id));
      const byRoot = cascadesByRoot(endedIds, await cascade(ctx, tx, endedIds, now));
      for (const r of ended) {
        const id = toId(r.id);
        results.set(id, { deadLetterJobId: r.dl_id === null ? null : toId(r.dl_id), cascaded: byRoot.get(id) ?? [] });
      }
    });
  }
  return failures.map((f) => results.get(f.jobId) ?? null);
}

/**
 * The cascade of several ended jobs, split by the ended job each cancelled job descends from
 * (following `cascadeFrom` up), so each failure reports its own dependents.
 */
function cascadesByRoot(ended: number[], cascaded: Cascaded): Map<number, Cascaded> {
  const parentOf = new Map(cascaded.map((c) => [c.jobId, c.cascadeFrom]));
  const endedSet = new Set(ended);
  const byRoot = new Map<number, Cascaded>();
  for (const c of cascaded) {
    // Each level's jobs name one of the level before as cascadeFrom, the first level an ended job.
    let root = c.cascadeFrom;
    for (let parent = parentOf.get(root); !endedSet.has(root) && parent !== undefined; parent = parentOf.get(root)) {
      root = parent;
    }
    const list = byRoot.get(root) ?? [];
    list.push(c);
    byRoot.set(root, list);
  }
  return byRoot;
}

type Fenced = { jobId: number; workerId: string; now: Date };

async function prolongJob(
  ctx: PostgresContext,
  { jobId, workerId, timeoutMs, now }: Fenced & { timeoutMs: number | null },
): Promise<boolean> {
  const { rows } = await ctx.conn.query(ctx.sql.prolongJob, [jobId, workerId, now, timeoutMs], true);
  return rows.length > 0;
}

async function setProgress(
  ctx: PostgresContext,
  { jobId, workerId, progress, now }: Fenced & { progress: number },
): Promise<boolean> {
  const { rows } = await ctx.conn.query(ctx.sql.setProgress, [jobId, workerId, progress, now], true);
  return rows.length > 0;
}

async function setOutput(
  ctx: PostgresContext,
  { jobId, workerId, output, now }: Fenced & { output: unknown },
): Promise<boolean> {
  const { rows } = await ctx.conn.query(
    ctx.sql.setOutput,
    [jobId, workerId, JSON.stringify(output ?? null), now],
    true,
  );
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

async function renewLeases(
  ctx: PostgresContext,
  { workerId, jobIds, now }: { workerId: string; jobIds: number[]; now: Date },
): Promise<number[]> {
  if (jobIds.length === 0) return [];
  const { rows } = await ctx.conn.query<{ id: string }>(ctx.sql.renewLeases, [jobIds, workerId, now], true);
  return rows.map((r) => toId(r.id));
}

async function releaseJobs(
  ctx: PostgresContext,
  { workerId, jobIds, now }: { workerId: string; jobIds: number[]; now: Date },
): Promise<number[]> {
  if (jobIds.length === 0) return [];
  const { rows } = await ctx.conn.query<{ id: string }>(ctx.sql.releaseJobs, [
    jobIds,
    workerId,
    now,
    ctx.names.channel,
  ]);
  return rows.map((r) => toId(r.id));
}

export const processingOperations = {
  claimJobs,
  completeJobs,
  failJobs,
  prolongJob,
  setProgress,
  setOutput,
  heldJobIds,
  renewLeases,
  releaseJobs,
};
