/**
 * Processing (SPEC §4.6) on Redis: claim, complete, fail, prolong, progress and output. Every
 * write after the claim is fenced inside its script: it applies only while the job is still
 * processing and locked by the same worker.
 */
import type { ClaimInput, ClaimedJob, CompleteInput, FailInput, FailResult } from '../../backend.js';
import type { BackendContext } from './context.js';
import { heldJobIds, releaseJobs, renewLeases } from './leases.js';
import { toClaimedJob, type JobRow } from './record.js';
import { scriptSlice } from './slices.js';

async function claimJobs(ctx: BackendContext, input: ClaimInput): Promise<ClaimedJob[]> {
  // A call claims at most scriptSlice.process jobs, so a large batch never holds the server for
  // long; each call is atomic. A call that filled its slice, or that moved blocked jobs out of
  // the way or put back jobs of a barrier that ended (claim-jobs.lua: a bounded number per call),
  // claims again: the calls end once the batch is full or nothing is left to claim or move.
  // A call that fails after others claimed jobs ends the claim with those jobs, which are this
  // worker's now, rather than leave them to the reclaim of stuck jobs; the error is reported,
  // and the next claim meets it again if it lasts. A first call that fails throws. A job whose
  // metadata a call could not read is passed over and reported (reportUnreadable), so it holds
  // up no other job (claim-jobs.lua).
  const jobs: ClaimedJob[] = [];
  while (jobs.length < input.batchSize) {
    const wanted = Math.min(input.batchSize - jobs.length, scriptSlice.process);
    let reply: [JobRow[], number, number[]];
    try {
      reply = await ctx.run<[JobRow[], number, number[]]>('claimJobs', [
        input.now.getTime(),
        input.workerId,
        wanted,
        input.jobTypes && input.jobTypes.length > 0 ? JSON.stringify(input.jobTypes) : '',
        input.groupConcurrency ?? '',
      ]);
    } catch (error) {
      if (jobs.length === 0) throw error;
      ctx.reportPassed(error, 'claimJobs', `claiming jobs failed after ${String(jobs.length)} were claimed, which run`);
      break;
    }
    const [rows, moved, unreadable] = reply;
    for (const id of unreadable) reportUnreadable(ctx, id);
    jobs.push(...rows.map((row) => toClaimedJob(...row)));
    if (rows.length < wanted && moved === 0) break;
  }
  ctx.sawJobIds(jobs.map((j) => j.id));
  return jobs;
}

/** The unreadable jobs each backend has reported, so that each is reported once. */
const reportedUnreadable = new WeakMap<BackendContext, Set<number>>();
/** Past this many ids the set starts again: a store damaged that widely is reported anew. */
const MAX_REPORTED_UNREADABLE = 10_000;

/**
 * Reports a job a claim passed over because its stored metadata is not a job's (claim-jobs.lua),
 * the first time a claim of this backend meets it: a claim takes it out of its way, but one
 * checking a tag barrier may read it again.
 */
function reportUnreadable(ctx: BackendContext, id: number): void {
  let reported = reportedUnreadable.get(ctx);
  if (!reported || reported.size >= MAX_REPORTED_UNREADABLE) {
    reported = new Set();
    reportedUnreadable.set(ctx, reported);
  }
  if (reported.has(id)) return;
  reported.add(id);
  ctx.reportPassed(
    new Error(
      `its metadata (field ${String(id)} of the \`jobs\` hash) is not a job's stored JSON, so it is not claimed; ` +
        'repair the field, then edit or retry the job to make it due again',
    ),
    'claimJobs',
    `job ${String(id)} was passed over by a claim`,
  );
}

async function completeJobs(ctx: BackendContext, completions: CompleteInput[], now: Date): Promise<number[]> {
  if (completions.length === 0) return [];
  // Outputs travel as JSON text and are stored verbatim.
  const batch = completions.map((c) => ({
    id: c.jobId,
    workerId: c.workerId,
    ...('output' in c && c.output !== undefined ? { output: JSON.stringify(c.output) } : {}),
  }));
  return ctx.run<number[]>('completeJobs', [now.getTime(), JSON.stringify(batch)]);
}

async function failJobs(ctx: BackendContext, failures: FailInput[], now: Date): Promise<(FailResult | null)[]> {
  if (failures.length === 0) return [];
  const batch = failures.map((f) => ({
    id: f.jobId,
    workerId: f.workerId,
    message: f.message,
    reason: f.reason,
    ...(f.retryAt === null ? {} : { retryAt: f.retryAt.getTime() }),
    ...(f.stack === undefined ? {} : { stack: f.stack }),
  }));
  const reply = await ctx.run<(0 | [number, [number, number][]])[]>('failJobs', [
    now.getTime(),
    now.toISOString(),
    JSON.stringify(batch),
  ]);
  const results = reply.map((r) => {
    if (r === 0) return null;
    const [deadLetterJobId, cascaded] = r;
    return {
      deadLetterJobId: deadLetterJobId === 0 ? null : deadLetterJobId,
      cascaded: cascaded.map(([jobId, cascadeFrom]) => ({ jobId, cascadeFrom })),
    };
  });
  ctx.sawJobIds(results.map((r) => r?.deadLetterJobId ?? null));
  return results;
}

interface Fenced {
  jobId: number;
  workerId: string;
  now: Date;
}

async function prolongJob(ctx: BackendContext, input: Fenced & { timeoutMs: number | null }): Promise<boolean> {
  const args = [input.jobId, input.workerId, input.timeoutMs ?? '', input.now.getTime()];
  return (await ctx.run<number>('prolongJob', args)) === 1;
}

async function setProgress(ctx: BackendContext, input: Fenced & { progress: number }): Promise<boolean> {
  const args = [input.jobId, input.workerId, input.progress, input.now.getTime()];
  return (await ctx.run<number>('setProgress', args)) === 1;
}

async function setOutput(ctx: BackendContext, input: Fenced & { output: unknown }): Promise<boolean> {
  const args = [input.jobId, input.workerId, JSON.stringify(input.output ?? null), input.now.getTime()];
  return (await ctx.run<number>('setOutput', args)) === 1;
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
