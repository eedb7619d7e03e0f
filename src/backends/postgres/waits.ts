/**
 * Durable waits (DETAILS "Handler context", "Queue-level token operations") on PostgreSQL: the
 * WaitStore operations. SQL, and why a token is always locked before its jobs change, in
 * queries/waits.ts.
 */
import type { EnterWaitInput, EnterWaitResult } from '../../backend.js';
import { StoreFact } from '../../store-facts.js';
import type { Queryable, WaitToken } from '../../types.js';
import type { PostgresContext } from './context.js';
import { rowToToken, type TokenRow } from './rows.js';

/** Tokens timed out per transaction; expireTimedOutTokens loops until a batch comes back short. */
const EXPIRE_BATCH = 1000;

/** JSON text of a value to store; `undefined` is stored as null. */
function jsonText(value: unknown): string {
  return JSON.stringify(value ?? null);
}

async function saveStep(
  ctx: PostgresContext,
  {
    jobId,
    workerId,
    stepName,
    value,
    now,
  }: { jobId: number; workerId: string; stepName: string; value: unknown; now: Date },
): Promise<boolean> {
  const { rows } = await ctx.conn.query(ctx.sql.saveStep, [jobId, workerId, stepName, jsonText(value), now]);
  return rows.length > 0;
}

async function enterWait(ctx: PostgresContext, input: EnterWaitInput): Promise<EnterWaitResult> {
  const { jobId, workerId, waitUntil, tokenId, step, now } = input;
  const values = [
    jobId,
    workerId,
    now,
    waitUntil,
    tokenId,
    step?.name ?? null,
    step ? jsonText(step.value) : null,
    JSON.stringify({ waitUntil: waitUntil?.toISOString() ?? null, tokenId }),
    ctx.names.channel,
  ];
  if (tokenId === null) {
    const { rows } = await ctx.conn.query(ctx.sql.enterWait, values);
    return rows.length > 0 ? { status: 'waiting' } : { status: 'lost' };
  }
  return ctx.conn.transaction(async (tx) => {
    // The token first: a completion waits for this transaction, or this one sees it.
    const { rows } = await tx.query(ctx.sql.lockToken, [tokenId]);
    const token = rows[0] as TokenRow | undefined;
    if (token?.status === 'waiting') {
      const entered = await tx.query(ctx.sql.enterWait, values);
      return entered.rows.length > 0 ? { status: 'waiting' } : { status: 'lost' };
    }
    // Nothing to change; as on Redis, a job that is no longer ours is reported first.
    if (!(await stillOurs(ctx, tx, jobId, workerId))) return { status: 'lost' };
    if (!token) throw new StoreFact({ kind: 'token-unknown', tokenId });
    return { status: 'token_settled', token: rowToToken(token) };
  });
}

async function createToken(
  ctx: PostgresContext,
  {
    id,
    jobId,
    timeoutAt,
    tags,
    now,
  }: { id: string; jobId: number | null; timeoutAt: Date | null; tags: string[]; now: Date },
): Promise<void> {
  const { rows } = await ctx.conn.query(ctx.sql.createToken, [id, jobId, timeoutAt, now, tags]);
  if (rows.length === 0) throw new StoreFact({ kind: 'token-id-taken', tokenId: id });
}

async function completeToken(
  ctx: PostgresContext,
  { tokenId, output, now }: { tokenId: string; output: unknown; now: Date },
): Promise<boolean> {
  return ctx.conn.transaction(async (tx) => {
    const { rows } = await tx.query(ctx.sql.completeToken, [tokenId, jsonText(output), now]);
    if (rows.length === 0) return false;
    await resumeWaiters(ctx, tx, [tokenId], now);
    return true;
  });
}

async function getToken(ctx: PostgresContext, tokenId: string): Promise<WaitToken | null> {
  const { rows } = await ctx.conn.query<TokenRow>(ctx.sql.getToken, [tokenId]);
  return rows[0] ? rowToToken(rows[0]) : null;
}

async function expireTimedOutTokens(ctx: PostgresContext, now: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await ctx.conn.transaction(async (tx) => {
      const { rows } = await tx.query(ctx.sql.expireTokens, [now, EXPIRE_BATCH]);
      const ids = (rows as { id: string }[]).map((r) => r.id);
      if (ids.length > 0) await resumeWaiters(ctx, tx, ids, now);
      return ids.length;
    });
    total += expired;
    if (expired < EXPIRE_BATCH) return total;
  }
}

export const waitOperations = { saveStep, enterWait, createToken, completeToken, getToken, expireTimedOutTokens };

/** A separate statement after the tokens changed: see queries/waits.ts on lost wake-ups. */
async function resumeWaiters(ctx: PostgresContext, tx: Queryable, tokenIds: string[], now: Date): Promise<void> {
  await tx.query(ctx.sql.resumeTokenWaiters, [tokenIds, now, ctx.names.channel]);
}

async function stillOurs(ctx: PostgresContext, tx: Queryable, jobId: number, workerId: string): Promise<boolean> {
  const { rows } = await tx.query(ctx.sql.stillOurs, [jobId, workerId]);
  return rows.length > 0;
}
