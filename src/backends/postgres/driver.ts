/**
 * What the PostgreSQL backend needs from the database it runs on, whichever target that is: a
 * server through a `pg.Pool` (pool.ts) or an embedded PGlite (pglite.ts). This is the one place
 * that asks which target a queue holds; every operation works through the Driver's Connection.
 */
import type { ResolvedPostgresConfig } from '../../config.js';
import type { PostgresPool, Queryable } from '../../types.js';
import type { Connection } from './connection.js';
import type { WakeSource } from './listener.js';
import type { MigrateOptions } from './migrate.js';
import { openPGliteDriver } from './pglite.js';
import { openPoolDriver } from './pool.js';

export interface Driver {
  /** Every statement of the queue runs here. */
  conn: Connection;
  /** One-off statements outside the hot path (the search_path lookup). */
  db: Queryable;
  /** Where `migrate: true` applies the migrations: the option of migrate() naming this database. */
  migrateTarget: Pick<MigrateOptions, 'pool' | 'pglite'>;
  /** Opens the wake-up connection of a schema's queue (listener.ts). */
  wakeSource(schema: string): WakeSource;
  /** What `getPool()` returns; throws when the target has no pool. */
  getPool(): PostgresPool;
  /** Passwords of the connection settings, masked in every error (store-errors.ts). */
  secrets: readonly string[];
  /**
   * The database has one session, which the caller's own transaction holds while it runs
   * (PGlite): nothing the queue does for a `db` add may wait on the database.
   */
  singleSession: boolean;
  /** Closes what the library opened; never the caller's pool or PGlite instance. */
  close(): Promise<void>;
}

/** @internal The queue's database: the caller's pool or PGlite, or one built from the settings. */
export function openDriver(config: ResolvedPostgresConfig): Driver {
  return config.pglite ? openPGliteDriver(config.pglite) : openPoolDriver(config);
}
