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
   * connection while holding one can deadlock a small pool. `setup`, statements without
   * parameters (settings, a lock), runs first, sent with BEGIN in one round trip.
   */
  transaction<T>(fn: (tx: Transaction) => Promise<T>, setup?: string): Promise<T>;
}

/**
 * The connection a transaction holds: its statements may be prepared, as with Connection.query.
 * Rows are typed as Queryable's are, so code written against a Queryable reads them alike.
 */
export interface Transaction extends Queryable {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as Queryable's rows
  query<R = any>(text: string, values?: unknown[], prepared?: boolean): Promise<QueryResult<R>>;
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
  /** One statement on the pool or on the client a transaction holds. */
  const run = async (on: Pool | PoolClient, text: string, values: unknown[] | undefined, prepared: boolean) => {
    const result = await on.query(
      prepared ? { name: statementName(text), text, values, types: (types ??= hotPathTypes(pool)) } : { text, values },
    );
    return { rows: result.rows as unknown[], rowCount: result.rowCount };
  };
  return {
    query: <R>(text: string, values?: unknown[], prepared = false) =>
      run(pool, text, values, prepared) as Promise<QueryResult<R>>,
    transaction: async <T>(fn: (tx: Transaction) => Promise<T>, setup?: string) => {
      const client: PoolClient = await pool.connect();
      let broken: Error | undefined;
      try {
        // A simple query of several statements runs them in order and stops at the first error,
        // which leaves the transaction open and failed: the ROLLBACK below ends it.
        await client.query(setup === undefined ? 'BEGIN' : `BEGIN; ${setup}`);
        const tx: Transaction = {
          query: <R>(text: string, values?: unknown[], prepared = false) =>
            run(client, text, values, prepared) as Promise<QueryResult<R>>,
        };
        const result = await fn(tx);
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
      } finally {
        client.release(broken);
      }
    },
  };
}
