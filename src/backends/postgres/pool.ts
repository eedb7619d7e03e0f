import type { Pool } from 'pg';
import { resolveDatabaseConfig } from '../../config.js';
import type { DatabaseConfig } from '../../types.js';
import { loadDriver } from '../../load-driver.js';

/**
 * Creates a pg.Pool from the queue's database settings (SSL `file://` values are read).
 * The caller owns the returned pool and closes it with `pool.end()`.
 */
export function createPool(databaseConfig: DatabaseConfig): Pool {
  const resolved = resolveDatabaseConfig('databaseConfig', databaseConfig);
  const pg = loadDriver<typeof import('pg')>('pg');
  const { ssl, ...rest } = resolved;
  return new pg.Pool({ ...rest, ssl: ssl ?? undefined });
}
