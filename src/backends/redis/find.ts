/**
 * Finding jobs on Redis: why pending jobs are held (hold-reasons.lua, one script for a page) and
 * the distinct job types (job-types.lua).
 */
import type { JobHoldReason } from '../../types.js';
import type { BackendContext } from './context.js';

async function getHoldReasons(
  ctx: BackendContext,
  input: { jobIds: number[]; now: Date },
): Promise<(JobHoldReason | null)[]> {
  if (input.jobIds.length === 0) return [];
  const reasons = await ctx.run<string[]>('holdReasons', [input.now.getTime(), ...input.jobIds]);
  return reasons.map((r) => (r === '' ? null : (r as JobHoldReason)));
}

async function getJobTypes(ctx: BackendContext, input: { prefix: string; limit: number }): Promise<string[]> {
  return ctx.run<string[]>('jobTypes', [input.prefix, input.limit]);
}

export const findOperations = { getHoldReasons, getJobTypes };
