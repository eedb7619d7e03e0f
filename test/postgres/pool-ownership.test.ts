/**
 * Pool ownership (SPEC §2.1 rule 3): a pool the library created from `databaseConfig` is ended by
 * close(); a caller's pool never is. Driver access of the other backend is refused.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { UnsupportedOnBackendError } from '../../src/errors.js';
import { backendOf } from '../../src/queue.js';
import { PG_URL } from '../helpers/backends.js';
import { usePostgres } from './support.js';

describe('pool ownership (postgres)', () => {
  const ctx = usePostgres();

  it('close() leaves a caller’s pool open', async () => {
    const pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
    try {
      const queue = ctx.queue({ pool });
      await queue.addJob({ jobType: 'x', payload: {} });
      await backendOf(queue).subscribeJobAvailable(() => undefined);
      expect(queue.getPool()).toBe(pool);
      await queue.close();
      expect(pool.ended).toBe(false);
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  it('close() ends the pool the library created from databaseConfig (twice is fine)', async () => {
    const queue = ctx.queue({ databaseConfig: { connectionString: PG_URL } });
    const id = await queue.addJob({ jobType: 'x', payload: {} });
    expect((await queue.getJob(id))?.status).toBe('pending');
    const pool = queue.getPool() as pg.Pool;
    expect(pool).toBeInstanceOf(pg.Pool);
    expect(pool.totalCount).toBeGreaterThan(0);

    await queue.close();
    await queue.close();
    expect(pool.ended).toBe(true);
    expect(pool.totalCount).toBe(0);
    await expect(pool.query('SELECT 1')).rejects.toThrow();
  });

  it('builds the library pool from host, port, database and user', async () => {
    const url = new URL(PG_URL);
    const queue = ctx.queue({
      databaseConfig: {
        host: url.hostname,
        port: Number(url.port || 5432),
        database: url.pathname.slice(1),
        user: decodeURIComponent(url.username),
        ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
      },
    });
    const id = await queue.addJob({ jobType: 'x', payload: { ok: true } });
    expect((await queue.getJob(id))?.payload).toEqual({ ok: true });
  });

  it('turns JIT off on the library’s own connections, and leaves a caller’s sessions alone', async () => {
    const own = ctx.queue({ databaseConfig: { connectionString: PG_URL } });
    expect((await own.getPool().query('SHOW jit')).rows[0].jit).toBe('off');

    const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
    try {
      const before = (await pool.query('SHOW jit')).rows[0].jit;
      const queue = ctx.queue({ pool });
      await queue.addJob({ jobType: 'x', payload: {} });
      await queue.cancelAllUpcomingJobs();
      expect((await pool.query('SHOW jit')).rows[0].jit).toBe(before);
    } finally {
      await pool.end();
    }
  });

  it('getRedisClient throws UnsupportedOnBackendError', () => {
    expect(() => ctx.queue().getRedisClient()).toThrow(UnsupportedOnBackendError);
  });
});
