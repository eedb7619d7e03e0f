/**
 * Durable waits (DETAILS "Handler context", "Queue-level token operations") on PostgreSQL: the
 * WaitStore operations. SQL, and why a token is always locked before its jobs change, in
 * queries/waits.ts.
 */
import type { EnterWaitInput, EnterWaitResult, WaitStore } from '../../backend.js';
import { NotFoundError, ValidationError, describeValue } from '../../errors.js';
import type { Queryable, WaitToken } from '../../types.js';
import type { Connection } from './connection.js';
import type { SchemaNames } from './queries/names.js';
import {
  completeTokenSql,
  createTokenSql,
  enterWaitSql,
  expireTokensSql,
  getTokenSql,
  lockTokenSql,
  resumeTokenWaitersSql,
  saveStepSql,
  stillOursSql,
} from './queries/waits.js';
import { rowToToken, type TokenRow } from './rows.js';

/** Tokens timed out per transaction; expireTimedOutTokens loops until a batch comes back short. */
const EXPIRE_BATCH = 1000;

/** JSON text of a value to store; `undefined` is stored as null. */
function jsonText(value: unknown): string {
  return JSON.stringify(value ?? null);
}

export class PostgresWaitStore implements WaitStore {
  private readonly sql: ReturnType<typeof buildStatements>;

  constructor(
    private readonly conn: Connection,
    private readonly names: SchemaNames,
  ) {
    this.sql = buildStatements(names);
  }

  async saveStep({ jobId, workerId, stepName, value, now }: { jobId: number; workerId: string; stepName: string; value: unknown; now: Date }): Promise<boolean> {
    const { rows } = await this.conn.query(this.sql.saveStep, [jobId, workerId, stepName, jsonText(value), now]);
    return rows.length > 0;
  }

  async enterWait(input: EnterWaitInput): Promise<EnterWaitResult> {
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
      this.names.channel,
    ];
    if (tokenId === null) {
      const { rows } = await this.conn.query(this.sql.enterWait, values);
      return rows.length > 0 ? { status: 'waiting' } : { status: 'lost' };
    }
    return this.conn.transaction(async (tx) => {
      // The token first: a completion waits for this transaction, or this one sees it.
      const { rows } = await tx.query(this.sql.lockToken, [tokenId]);
      const token = rows[0] as TokenRow | undefined;
      if (token?.status === 'waiting') {
        const entered = await tx.query(this.sql.enterWait, values);
        return entered.rows.length > 0 ? { status: 'waiting' } : { status: 'lost' };
      }
      // Nothing to change; as on Redis, a job that is no longer ours is reported first.
      if (!(await this.stillOurs(tx, jobId, workerId))) return { status: 'lost' };
      if (!token) throw new NotFoundError(`Expected \`tokenId\` to name an existing waitpoint token, got ${describeValue(tokenId)}`);
      return { status: 'token_settled', token: rowToToken(token) };
    });
  }

  async createToken({ id, jobId, timeoutAt, tags, now }: { id: string; jobId: number | null; timeoutAt: Date | null; tags: string[]; now: Date }): Promise<void> {
    const { rows } = await this.conn.query(this.sql.createToken, [id, jobId, timeoutAt, now, tags]);
    if (rows.length === 0) throw new ValidationError('id', `Expected a new waitpoint token id, got ${describeValue(id)}, already taken`);
  }

  async completeToken({ tokenId, output, now }: { tokenId: string; output: unknown; now: Date }): Promise<boolean> {
    return this.conn.transaction(async (tx) => {
      const { rows } = await tx.query(this.sql.completeToken, [tokenId, jsonText(output), now]);
      if (rows.length === 0) return false;
      await this.resumeWaiters(tx, [tokenId], now);
      return true;
    });
  }

  async getToken(tokenId: string): Promise<WaitToken | null> {
    const { rows } = await this.conn.query<TokenRow>(this.sql.getToken, [tokenId]);
    return rows[0] ? rowToToken(rows[0]) : null;
  }

  async expireTimedOutTokens(now: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const expired = await this.conn.transaction(async (tx) => {
        const { rows } = await tx.query(this.sql.expireTokens, [now, EXPIRE_BATCH]);
        const ids = (rows as { id: string }[]).map((r) => r.id);
        if (ids.length > 0) await this.resumeWaiters(tx, ids, now);
        return ids.length;
      });
      total += expired;
      if (expired < EXPIRE_BATCH) return total;
    }
  }

  /** A separate statement after the tokens changed: see queries/waits.ts on lost wake-ups. */
  private async resumeWaiters(tx: Queryable, tokenIds: string[], now: Date): Promise<void> {
    await tx.query(this.sql.resumeTokenWaiters, [tokenIds, now, this.names.channel]);
  }

  private async stillOurs(tx: Queryable, jobId: number, workerId: string): Promise<boolean> {
    const { rows } = await tx.query(this.sql.stillOurs, [jobId, workerId]);
    return rows.length > 0;
  }
}

function buildStatements(t: SchemaNames) {
  return {
    saveStep: saveStepSql(t),
    enterWait: enterWaitSql(t),
    stillOurs: stillOursSql(t),
    lockToken: lockTokenSql(t),
    getToken: getTokenSql(t),
    createToken: createTokenSql(t),
    completeToken: completeTokenSql(t),
    expireTokens: expireTokensSql(t),
    resumeTokenWaiters: resumeTokenWaitersSql(t),
  };
}
