import type { ClientConfig, Pool, PoolConfig } from 'pg';
import { resolveDatabaseConfig, type ResolvedPostgresConfig } from '../../config.js';
import type { DatabaseConfig, PostgresPool } from '../../types.js';
import { loadDriver } from '../../load-driver.js';

type ResolvedDatabaseConfig = NonNullable<ResolvedPostgresConfig['databaseConfig']>;

/**
 * Creates a pg.Pool from the queue's database settings (SSL `file://` values are read).
 * The caller owns the returned pool and closes it with `pool.end()`.
 */
export function createPool(databaseConfig: DatabaseConfig): PostgresPool {
  return createPoolFromResolved(resolveDatabaseConfig('databaseConfig', databaseConfig));
}

/** pg connection settings of a resolved `databaseConfig` (TLS material already loaded). */
export function clientConfigOf(resolved: ResolvedDatabaseConfig): ClientConfig {
  const { ssl, ...rest } = resolved;
  return { ...rest, ssl: ssl ?? undefined };
}

/** @internal A pool from an already validated `databaseConfig`. */
export function createPoolFromResolved(resolved: ResolvedDatabaseConfig, extra: PoolConfig = {}): Pool {
  const pg = loadDriver<typeof import('pg')>('pg');
  return new pg.Pool({ ...clientConfigOf(resolved), ...extra });
}
