/**
 * createPool (SPEC §2.1 rules 1-2), a PostgreSQL-only helper: `file://` TLS values are read from
 * disk, other values are PEM text, and an `sslmode` in the URL that would override a custom CA
 * or rejectUnauthorized: false is refused.
 */
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ConfigError, createPool } from '../../src/index.js';
import { PG_URL } from '../helpers/backends.js';
import { CLIENT_PEM, PEM, useTlsFiles } from '../helpers/tls-files.js';

const { caPath, certPath, keyPath } = useTlsFiles();

describe('createPool and TLS files (§2.1 rules 1-2)', () => {
  it('reads file:// values from disk and passes the file text to the pool', async () => {
    const pool = createPool({
      connectionString: PG_URL,
      ssl: {
        ca: `file://${caPath}`,
        cert: pathToFileURL(certPath).href,
        key: `file://${keyPath}`,
        rejectUnauthorized: false,
      },
    }) as pg.Pool;
    try {
      expect(pool).toBeInstanceOf(pg.Pool);
      const ssl = pool.options.ssl as { ca: string; cert: string; key: string; rejectUnauthorized: boolean };
      expect(ssl.ca).toBe(PEM);
      expect(ssl.cert).toBe(CLIENT_PEM);
      // pg keeps `key` as a non-enumerable property, so it is read directly.
      expect(ssl.key).toBe('-----BEGIN PRIVATE KEY-----\nKEYtest\n-----END PRIVATE KEY-----\n');
      expect(ssl.rejectUnauthorized).toBe(false);
    } finally {
      await pool.end();
    }
  });

  it('uses a value that does not start with file:// as PEM text, even when it looks like a path', async () => {
    const pool = createPool({ connectionString: PG_URL, ssl: { ca: caPath } }) as pg.Pool;
    try {
      expect(pool.options.ssl).toMatchObject({ ca: caPath, rejectUnauthorized: true });
    } finally {
      await pool.end();
    }
  });

  it('refuses sslmode with a custom CA or rejectUnauthorized false', () => {
    const url = `${PG_URL}?sslmode=require`;
    expect(() => createPool({ connectionString: url, ssl: { ca: PEM } })).toThrow(ConfigError);
    expect(() => createPool({ connectionString: url, ssl: { rejectUnauthorized: false } })).toThrow(ConfigError);
  });

  it('accepts sslmode when no custom CA is set and certificates are verified', async () => {
    const pool = createPool({ connectionString: `${PG_URL}?sslmode=disable`, ssl: { rejectUnauthorized: true } });
    await pool.end();
  });

  it('creates a pool that answers queries', async () => {
    const pool = createPool({ connectionString: PG_URL });
    try {
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });
});
