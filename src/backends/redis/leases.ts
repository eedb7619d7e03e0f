/**
 * The processor's leases on Redis: the check of which jobs its handlers run are still processing
 * and locked by it (held-jobs.lua), and the renewal and hand-back of the jobs it claimed ahead
 * and has not started (renew-leases.lua, release-jobs.lua); one script for the whole list each.
 */
import type { BackendContext } from './context.js';
import type { ScriptName } from './scripts.js';
import { scriptSlice } from './slices.js';

export async function heldJobIds(
  ctx: BackendContext,
  input: { workerId: string; jobIds: number[] },
): Promise<number[]> {
  if (input.jobIds.length === 0) return [];
  return ctx.run<number[]>('heldJobs', [input.workerId, ...input.jobIds]);
}

type LeaseInput = { workerId: string; jobIds: number[]; now: Date };

export function renewLeases(ctx: BackendContext, input: LeaseInput): Promise<number[]> {
  return inSlices(ctx, 'renewLeases', input);
}

export function releaseJobs(ctx: BackendContext, input: LeaseInput): Promise<number[]> {
  return inSlices(ctx, 'releaseJobs', input);
}

/** A script per `scriptSlice.process` jobs (each rewrites them): a large buffer does not hold the server. */
async function inSlices(ctx: BackendContext, script: ScriptName, input: LeaseInput): Promise<number[]> {
  const done: number[] = [];
  for (let i = 0; i < input.jobIds.length; i += scriptSlice.process) {
    const ids = input.jobIds.slice(i, i + scriptSlice.process);
    done.push(...(await ctx.run<number[]>(script, [input.workerId, input.now.getTime(), ...ids])));
  }
  return done;
}
