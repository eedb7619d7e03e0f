/**
 * The small connection interface the PostgreSQL backend is built on. A `pg.Pool` sits behind it
 * today; an embedded PostgreSQL can implement the same two methods later without touching the
 * queries.
 */
import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { loadDriver } from '../../load-driver.js';
import type { Queryable } from '../../types.js';
import { withFastTimestamps, type TypeParsers } from './timestamps.js';

export interface QueryResult<R> {
  rows: R[];
  rowCount: number | null;
}

export interface Connection {
  /**
   * Runs one statement on any free connection. `prepared` names the statement so each
   * connection parses and plans it once: for the fixed statements of the hot path (add, claim,
   * complete, fail), where planning would otherwise cost as much as running them.
   */
  query<R = Record<string, unknown>>(text: string, values?: unknown[], prepared?: boolean): Promise<QueryResult<R>>;
  /**
   * Runs `fn` inside BEGIN/COMMIT on ONE connection held for the whole transaction (ROLLBACK
   * when `fn` throws). `fn` must use only the `tx` it is given: checking out a second pool
   * connection while holding one can deadlock a small pool.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
}

const statementNames = new Map<string, string>();

/** A name per statement text, so one pool shared by queues on several schemas never mixes them. */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `queuedev_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * The parsers of the hot path's rows: the pool's own (its `types` option, else the driver's), with
 * `timestamptz` read by position (timestamps.ts), which matters for claims of hundreds of jobs.
 */
function hotPathTypes(pool: Pool): TypeParsers {
  const own = (pool as { options?: { types?: TypeParsers } }).options?.types;
  return withFastTimestamps(own ?? loadDriver('pg').types);
}

/** A Connection over a pg.Pool (the library's own pool or the caller's). */
export function poolConnection(pool: Pool): Connection {
  let types: TypeParsers | undefined;
  return {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names its row type, as with pg's own query<R>(); rows are not checked at runtime
    query: async <R>(text: string, values?: unknown[], prepared = false) => {
      const result = await pool.query(
        prepared
          ? { name: statementName(text), text, values, types: (types ??= hotPathTypes(pool)) }
          : { text, values },
      );
      return { rows: result.rows as R[], rowCount: result.rowCount };
    },
    transaction: async <T>(fn: (tx: Queryable) => Promise<T>) => {
      const client: PoolClient = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        try {
          const result = await fn(client);
          await client.query('COMMIT');
          return result;
        } catch (err) {
          try {
            await client.query('ROLLBACK');
          } catch (rollbackError) {
            // The connection is in an unknown state: destroy it instead of returning it to the pool.
            broken = rollbackError as Error;
          }
          throw err;
        }
      } finally {
        client.release(broken);
      }
    },
  };
}
