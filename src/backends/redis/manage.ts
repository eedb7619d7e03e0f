/**
 * Managing jobs (SPEC §4.3) on Redis: retry, cancel, edit, delete, cleanup and reclaim, each one
 * Lua script (a cleanup: one script per slice of its batch; a retry, cancel or edit by filter
 * and a reclaim: one script per slice of candidate jobs, slices.ts, so each job changes
 * atomically but the whole set does not).
 */
import type {
  CancelResult,
  CleanupInput,
  DeleteJobResult,
  JobEdit,
  JobSelector,
  ReclaimInput,
  ReclaimResult,
} from '../../backend.js';
import type { JobStatus } from '../../types.js';
import type { BackendContext } from './context.js';
import type { ScriptArg } from './scripts.js';
import { toLuaQuery } from './query.js';
import { floatText, type StoredJob } from './record.js';
import { nextWriteSlice, scriptSlice, walkSlices } from './slices.js';

type Cascaded = [number, number][];

function cascadedPairs(pairs: Cascaded): { jobId: number; cascadeFrom: number }[] {
  return pairs.map(([jobId, cascadeFrom]) => ({ jobId, cascadeFrom }));
}

/** ARGV of a selector: the job id, or '' and the filter query (the script sets the status). */
function selectorArgs(selector: JobSelector): [string | number, string] {
  if ('jobId' in selector) return [selector.jobId, ''];
  return ['', JSON.stringify(toLuaQuery(selector.filter))];
}

/**
 * Runs a retry or edit script slice after slice (each call: `args`, the cursor and the slice
 * size), collecting the ids of the jobs each slice changed.
 */
async function idsOfSlices(
  ctx: BackendContext,
  script: 'retryJobs' | 'editJobs',
  args: ScriptArg[],
): Promise<number[]> {
  const changed: number[] = [];
  await walkSlices(
    (cursor) => ctx.run<[number[], number]>(script, [...args, cursor, scriptSlice.write]),
    ([ids, next]) => {
      changed.push(...ids);
      return next;
    },
  );
  return changed;
}

async function retryJobs(ctx: BackendContext, selector: JobSelector, now: Date): Promise<number[]> {
  return idsOfSlices(ctx, 'retryJobs', [now.getTime(), ...selectorArgs(selector)]);
}

async function deleteJob(ctx: BackendContext, jobId: number): Promise<DeleteJobResult> {
  const [deleted, status, retryDue] = await ctx.run<[number, string, number]>('deleteJob', [jobId]);
  return { deleted: deleted === 1, status: status === '' ? null : (status as JobStatus), retryDue: retryDue === 1 };
}

async function cancelJobs(ctx: BackendContext, selector: JobSelector, now: Date): Promise<CancelResult> {
  const cancelledIds: number[] = [];
  const cascaded: Cascaded = [];
  const args = [now.getTime(), ...selectorArgs(selector)];
  // A slice's cascades may cancel many dependents: the first slice takes one candidate, and
  // each next one as many as keep the work of one call near `scriptSlice.write` jobs at the
  // last slice's rate (one job and its whole cascade at the least).
  let size = 1;
  await walkSlices(
    (cursor) => ctx.run<[number[], Cascaded, number]>('cancelJobs', [...args, cursor, size]),
    ([ids, pairs, next]) => {
      cancelledIds.push(...ids);
      cascaded.push(...pairs);
      size = nextWriteSlice(size, ids.length + pairs.length);
      return next;
    },
  );
  return { cancelledIds, cascaded: cascadedPairs(cascaded) };
}

async function editJobs(ctx: BackendContext, selector: JobSelector, edit: JobEdit, now: Date): Promise<number[]> {
  // The metadata fields in their stored form; the payload travels apart, verbatim.
  const changes: Partial<StoredJob> = {};
  if (edit.maxAttempts !== undefined) changes.maxAttempts = edit.maxAttempts;
  if (edit.priority !== undefined) changes.priority = edit.priority;
  if (edit.runAt !== undefined) changes.runAt = edit.runAt.getTime();
  if (edit.timeoutMs !== undefined) changes.timeoutMs = edit.timeoutMs;
  if (edit.tags !== undefined) changes.tags = edit.tags;
  if (edit.retryDelay !== undefined) changes.retryDelay = floatText(edit.retryDelay);
  if (edit.retryBackoff !== undefined) changes.retryBackoff = edit.retryBackoff;
  if (edit.retryDelayMax !== undefined) changes.retryDelayMax = floatText(edit.retryDelayMax);
  if (edit.deadLetterJobType !== undefined) changes.deadLetterJobType = edit.deadLetterJobType;
  const payload = 'payload' in edit && edit.payload !== undefined ? JSON.stringify(edit.payload) : '';
  // The `edited` event: the updated fields with their public names, dates as ISO strings.
  const metadata = JSON.stringify(edit);
  return idsOfSlices(ctx, 'editJobs', [
    now.getTime(),
    ...selectorArgs(selector),
    JSON.stringify(changes),
    payload,
    metadata,
  ]);
}

/**
 * Runs a cleanup script slice after slice until one comes back short. A slice is the batch
 * size, capped at `cap` (slices.ts), so one call stays short whatever the batch size.
 */
async function inSlices(
  run: (size: number) => Promise<{ removed: number; scanned: number }>,
  batchSize: number,
  cap: number,
): Promise<number> {
  const size = Math.max(1, Math.min(batchSize, cap));
  let total = 0;
  for (;;) {
    const { removed, scanned } = await run(size);
    total += removed;
    if (scanned < size) return total;
  }
}

export function cleanupOldJobs(ctx: BackendContext, input: CleanupInput): Promise<number> {
  const olderThan = input.olderThan.getTime();
  return inSlices(
    async (size) => {
      const [removed, scanned] = await ctx.run<[number, number]>('cleanupJobs', [olderThan, size]);
      return { removed, scanned };
    },
    input.batchSize,
    scriptSlice.cleanup,
  );
}

/**
 * The events of `events`, then those kept in job metadata: the `added` events
 * (cleanup-added-events.lua), and the `processing` and `completed` events of completed jobs
 * (cleanup-kept-events.lua).
 */
export async function cleanupOldJobEvents(ctx: BackendContext, input: CleanupInput): Promise<number> {
  const olderThan = input.olderThan.getTime();
  let removed = await inSlices(
    async (size) => {
      const n = await ctx.run<number>('cleanupEvents', [olderThan, size]);
      return { removed: n, scanned: n };
    },
    input.batchSize,
    scriptSlice.events,
  );
  for (const script of ['cleanupAddedEvents', 'cleanupKeptEvents'] as const) {
    removed += await inSlices(
      async (size) => {
        const [passed, walked] = await ctx.run<[number, number]>(script, [olderThan, size]);
        return { removed: passed, scanned: walked };
      },
      input.batchSize,
      scriptSlice.events,
    );
  }
  return removed;
}

async function reclaimStuckJobs(ctx: BackendContext, input: ReclaimInput): Promise<ReclaimResult> {
  const result: ReclaimResult = { requeuedIds: [], failedIds: [], deadLetterJobIds: [], cascaded: [] };
  const args = [input.now.getTime(), input.maxProcessingMs, input.now.toISOString()];
  // Slices of `scriptSlice.write` candidates, oldest lock first. A job that one call leaves
  // processing (its own timeoutMs is longer) stays at the front of the walk, so the next call
  // skips the candidates kept so far. A kept job that finishes between two calls makes the
  // walk skip one candidate too many: the next reclaim takes it.
  let skip = 0;
  for (;;) {
    const slice = scriptSlice.write;
    const [requeuedIds, failedIds, deadLetterJobIds, cascaded, examined, kept] = await ctx.run<
      [number[], number[], number[], Cascaded, number, number]
    >('reclaimStuck', [...args, skip, slice]);
    ctx.sawJobIds(deadLetterJobIds);
    result.requeuedIds.push(...requeuedIds);
    result.failedIds.push(...failedIds);
    result.deadLetterJobIds.push(...deadLetterJobIds);
    result.cascaded.push(...cascadedPairs(cascaded));
    if (examined < slice) return result;
    skip += kept;
  }
}

export const manageOperations = {
  retryJobs,
  deleteJob,
  cancelJobs,
  editJobs,
  cleanupOldJobs,
  cleanupOldJobEvents,
  reclaimStuckJobs,
};
