import type { ClientConfig, Pool, PoolConfig } from 'pg';
import { resolveDatabaseConfig, type ResolvedPostgresConfig } from '../../config.js';
import { checkPostgresTarget } from '../../connection-strings.js';
import type { DatabaseConfig, PostgresPool } from '../../types.js';
import { loadDriver } from '../../load-driver.js';
import { poolConnection } from './connection.js';
import type { Driver } from './driver.js';
import type { WakeSource } from './listener.js';
import { poolSecrets } from './store-errors.js';

type ResolvedDatabaseConfig = NonNullable<ResolvedPostgresConfig['databaseConfig']>;

/**
 * Creates a pg.Pool from the queue's database settings (SSL `file://` values are read).
 * The caller owns the returned pool and closes it with `pool.end()`.
 */
export function createPool(databaseConfig: DatabaseConfig): PostgresPool {
  const resolved = resolveDatabaseConfig('databaseConfig', databaseConfig);
  checkPostgresTarget('databaseConfig', resolved);
  return createPoolFromResolved(resolved);
}

/** pg connection settings of a resolved `databaseConfig` (TLS material already loaded). */
export function clientConfigOf(resolved: ResolvedDatabaseConfig): ClientConfig {
  const { ssl, ...rest } = resolved;
  return { ...rest, ssl: ssl ?? undefined };
}

/** @internal A pool from an already validated `databaseConfig`. */
export function createPoolFromResolved(resolved: ResolvedDatabaseConfig, extra: PoolConfig = {}): Pool {
  const pg = loadDriver('pg');
  return new pg.Pool({ ...clientConfigOf(resolved), ...extra });
}

/** @internal The queue's pool: the caller's `pool`, or one built from `databaseConfig`. */
export function openPoolDriver(config: ResolvedPostgresConfig): Driver {
  const { pool, ownsPool, clientConfig } = openPool(config);
  return {
    conn: poolConnection(pool),
    db: pool,
    migrateTarget: { pool },
    // Named, so operators (and tests) can tell the wake-up connection apart in pg_stat_activity.
    wakeSource: (schema) => pgWakeSource(() => ({ ...clientConfig(), application_name: `queuedev-wake:${schema}` })),
    getPool: () => pool,
    singleSession: false,
    secrets: poolSecrets(pool),
    close: () => (ownsPool ? pool.end() : Promise.resolve()),
  };
}

function openPool(config: ResolvedPostgresConfig): {
  pool: Pool;
  ownsPool: boolean;
  clientConfig: () => ClientConfig;
} {
  if (config.pool) {
    const pool = config.pool;
    // pg.Pool keeps the settings it was created with; the wake-up connection reuses them.
    return {
      pool,
      ownsPool: false,
      clientConfig: () => ({ ...(pool as unknown as { options: ClientConfig }).options }),
    };
  }
  const resolved = config.databaseConfig!;
  // JIT compilation costs tens to hundreds of milliseconds, far more than any statement of
  // the queue; on large tables the planner's estimates can still cross jit_above_cost. Never
  // JIT on the library's own connections: a startup option, so no extra query per connection.
  const pool = createPoolFromResolved(resolved, { options: '-c jit=off' });
  // An idle connection dropped by the server must not crash the process; the pool replaces it.
  pool.on('error', (err) => {
    config.log.debug(`idle connection error: ${err.message}`, { error: err });
  });
  return { pool, ownsPool: true, clientConfig: () => clientConfigOf(resolved) };
}

/**
 * Wake-ups on a server: a pg.Client of its own, apart from the pool, since a pool connection
 * would be returned to the pool and lose its LISTEN.
 */
function pgWakeSource(clientConfig: () => ClientConfig): WakeSource {
  return async ({ channel, quotedChannel, notify, lost }) => {
    const pg = loadDriver('pg');
    const client = new pg.Client(clientConfig());
    client.on('notification', (message) => {
      if (message.channel === channel) notify(message.payload ?? '');
    });
    // 'error' without a handler would crash the process; both events mean the connection is gone.
    client.on('error', (err) => lost(err));
    client.on('end', () => lost());
    const end = async () => {
      client.removeAllListeners('end');
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
    };
    try {
      await client.connect();
      await client.query(`LISTEN ${quotedChannel}`);
    } catch (err) {
      await end();
      throw err;
    }
    return { close: end };
  };
}
