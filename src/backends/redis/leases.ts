/**
 * The processor's lease check on Redis: which of the jobs its handlers run are still processing
 * and locked by it (held-jobs.lua, one script for the whole list).
 */
import type { BackendContext } from './context.js';

export async function heldJobIds(
  ctx: BackendContext,
  input: { workerId: string; jobIds: number[] },
): Promise<number[]> {
  if (input.jobIds.length === 0) return [];
  return ctx.run<number[]>('heldJobs', [input.workerId, ...input.jobIds]);
}
