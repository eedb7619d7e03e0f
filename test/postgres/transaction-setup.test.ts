/**
 * A transaction's setup statements (settings, a lock) run before its body, on both connection
 * kinds: on a pg pool they go out with BEGIN, on PGlite first inside its transaction. Their
 * LOCAL settings hold for the body and end with the transaction; a setup that fails runs none of
 * the body and leaves the connection usable.
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { poolConnection, type Connection } from '../../src/backends/postgres/connection.js';
import { pgliteConnection } from '../../src/backends/postgres/pglite.js';
import { PG_URL } from '../helpers/backends.js';

const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
const lite = await PGlite.create();
afterAll(async () => {
  await pool.end();
  await lite.close();
});

const setting = async (on: Pick<Connection, 'query'>) =>
  (await on.query<{ enable_seqscan: string }>('SHOW enable_seqscan')).rows[0]!.enable_seqscan;

describe.each([
  ['a pg pool', () => poolConnection(pool)],
  ['PGlite', () => pgliteConnection(lite)],
])('transaction setup on %s (postgres)', (_, connect) => {
  it('holds the setup for the body and ends it with the transaction', async () => {
    const conn = connect();
    const inside = await conn.transaction((tx) => setting(tx), 'SET LOCAL enable_seqscan = off');
    expect(inside).toBe('off');
    expect(await setting(conn)).toBe('on');
  });

  it('runs none of the body when the setup fails, and the connection stays usable', async () => {
    const conn = connect();
    let ran = false;
    await expect(
      conn.transaction(async () => {
        ran = true;
      }, 'SET LOCAL enable_seqscan = off; SELECT 1 / 0'),
    ).rejects.toThrow(/division by zero/);
    expect(ran).toBe(false);
    expect(await setting(conn)).toBe('on');
    expect(await conn.transaction(async (tx) => (await tx.query<{ n: number }>('SELECT 2 AS n')).rows)).toEqual([
      { n: 2 },
    ]);
  });
});
