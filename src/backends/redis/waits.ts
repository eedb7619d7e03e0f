/**
 * Durable waits (DETAILS "Handler context", "Queue-level token operations") on Redis: step
 * data, entering a wait, and waitpoint tokens, each one Lua script. Step values and token
 * outputs travel as JSON text and are stored verbatim (see keys.ts).
 */
import type { EnterWaitInput, EnterWaitResult } from '../../backend.js';
import { StoreFact } from '../../store-facts.js';
import type { WaitToken, WaitTokenStatus } from '../../types.js';
import type { BackendContext } from './context.js';

/** Token metadata in the `tokens` hash; times are epoch ms; Lua may write an empty `tags` as `{}`. */
interface StoredToken {
  id: string;
  jobId: number | null;
  status: WaitTokenStatus;
  timeoutAt: number | null;
  createdAt: number;
  completedAt: number | null;
  tags: string[] | Record<string, never>;
}

/** Tokens timed out per expire-tokens call; expireTimedOutTokens loops until a batch comes back short. */
const EXPIRE_BATCH = 1000;

function toWaitToken(metaText: string, outputText: string | null): WaitToken {
  const t = JSON.parse(metaText) as StoredToken;
  return {
    id: t.id,
    jobId: t.jobId ?? null,
    status: t.status,
    output: outputText === null ? null : JSON.parse(outputText),
    timeoutAt: t.timeoutAt == null ? null : new Date(t.timeoutAt),
    createdAt: new Date(t.createdAt),
    completedAt: t.completedAt == null ? null : new Date(t.completedAt),
    tags: Array.isArray(t.tags) ? t.tags : [],
  };
}

/** JSON text of a value to store; `undefined` is stored as null. */
function jsonText(value: unknown): string {
  return JSON.stringify(value ?? null);
}

async function saveStep(
  ctx: BackendContext,
  input: { jobId: number; workerId: string; stepName: string; value: unknown; now: Date },
): Promise<boolean> {
  const args = [input.jobId, input.workerId, input.stepName, jsonText(input.value), input.now.getTime()];
  return (await ctx.run<number>('saveStep', args)) === 1;
}

type EnterWaitReply = ['waiting'] | ['lost'] | ['missing'] | ['token_settled', string, string | null];

async function enterWait(ctx: BackendContext, input: EnterWaitInput): Promise<EnterWaitResult> {
  const metadata = JSON.stringify({ waitUntil: input.waitUntil?.toISOString() ?? null, tokenId: input.tokenId });
  const reply = await ctx.run<EnterWaitReply>('enterWait', [
    input.jobId,
    input.workerId,
    input.now.getTime(),
    input.waitUntil?.getTime() ?? '',
    input.tokenId ?? '',
    input.step?.name ?? '',
    input.step ? jsonText(input.step.value) : '',
    metadata,
  ]);
  switch (reply[0]) {
    case 'waiting':
      return { status: 'waiting' };
    case 'lost':
      return { status: 'lost' };
    case 'token_settled':
      return { status: 'token_settled', token: toWaitToken(reply[1], reply[2]) };
    case 'missing':
      throw new StoreFact({ kind: 'token-unknown', tokenId: input.tokenId });
  }
}

async function createToken(
  ctx: BackendContext,
  input: { id: string; jobId: number | null; timeoutAt: Date | null; tags: string[]; now: Date },
): Promise<void> {
  const stored: StoredToken = {
    id: input.id,
    jobId: input.jobId,
    status: 'waiting',
    timeoutAt: input.timeoutAt?.getTime() ?? null,
    createdAt: input.now.getTime(),
    completedAt: null,
    tags: input.tags,
  };
  const created = await ctx.run<number>('createToken', [
    input.id,
    JSON.stringify(stored),
    input.timeoutAt?.getTime() ?? '',
  ]);
  if (created !== 1) throw new StoreFact({ kind: 'token-id-taken', tokenId: input.id });
}

async function completeToken(
  ctx: BackendContext,
  input: { tokenId: string; output: unknown; now: Date },
): Promise<boolean> {
  return (await ctx.run<number>('completeToken', [input.tokenId, jsonText(input.output), input.now.getTime()])) === 1;
}

async function getToken(ctx: BackendContext, tokenId: string): Promise<WaitToken | null> {
  await ctx.ready(); // read with the client directly, not through `run`
  // MULTI: the status and the output are read at one instant (complete-token writes both).
  const replies = await ctx.client.multi().hget(ctx.keys.tokens, tokenId).hget(ctx.keys.tokenOutputs, tokenId).exec();
  if (!replies) throw new Error('Redis transaction returned no replies');
  const [meta, output] = replies.map(([err, value]) => {
    if (err) throw err;
    return value as string | null;
  });
  return meta ? toWaitToken(meta, output ?? null) : null;
}

async function expireTimedOutTokens(ctx: BackendContext, now: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const [expired, scanned] = await ctx.run<[number, number]>('expireTokens', [now.getTime(), EXPIRE_BATCH]);
    total += expired;
    if (scanned < EXPIRE_BATCH) return total;
  }
}

export const waitOperations = { saveStep, enterWait, createToken, completeToken, getToken, expireTimedOutTokens };
