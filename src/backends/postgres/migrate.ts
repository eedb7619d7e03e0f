/**
 * Applies the shipped migrations (migrations/*.sql) with node-pg-migrate, history in
 * `<schema>.queuedev_migrations`. Used by `queue-cli migrate` and by the test harness.
 */
import { createHash } from 'node:crypto';
import type { ClientConfig } from 'pg';
import { quoteIdent } from '../../config.js';
import { ConfigError, describeValue } from '../../errors.js';
import { loadDriver } from '../../load-driver.js';
import { findMigrationsDir } from './migrations-dir.js';

export const MIGRATIONS_TABLE = 'queuedev_migrations';
/** The environment variable `queue-cli migrate` reads the connection string from. */
export const DATABASE_ENV = 'PG_QUEUE_DATABASE';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

export interface MigrateOptions {
  /** Connection string, or pg client settings (e.g. with `ssl`). */
  databaseUrl: string | ClientConfig;
  /** Schema of the queue's tables; created when missing. @default 'public' */
  schema?: string;
  /** @default 'up' */
  direction?: 'up' | 'down';
  /** Migrations to run (down: how many to undo). @default all for up, 1 for down */
  count?: number;
  /** Log every statement. @default false */
  verbose?: boolean;
  /** Show what would run without running it. */
  dryRun?: boolean;
  /** Record migrations as run without running them. */
  fake?: boolean;
  /** Run all pending migrations in one transaction. @default true */
  singleTransaction?: boolean;
  /** Check that already-run migrations precede the pending ones. @default true */
  checkOrder?: boolean;
  /** Where progress lines go. @default nowhere (warnings and errors go to the console) */
  log?: (message: string) => void;
}

/** Validates a schema name (an SQL identifier) for migrate and the CLI. */
export function requireSchemaName(schema: unknown, field = 'schema'): string {
  if (typeof schema !== 'string' || !IDENTIFIER.test(schema)) {
    throw new ConfigError(
      `Expected \`${field}\` to be a PostgreSQL identifier (letters, digits and _, not starting with a digit, at most 63), got ${describeValue(schema)}`,
    );
  }
  return schema;
}

/** The advisory lock that makes migrations of one schema take turns (a different key per schema). */
export function migrationLockKey(schema: string): number {
  // node-pg-migrate puts the key into SQL as a number literal: keep it a safe integer.
  return Number(createHash('sha256').update(`queuedev:migrate:${schema}`).digest().readBigUInt64BE(0) >> 12n);
}

/**
 * Applies the shipped migrations to `schema`, creating it when missing. Safe to call from
 * several processes at once: runs on the same schema wait for each other (advisory lock), runs
 * on different schemas proceed in parallel.
 */
export async function migrate(options: MigrateOptions): Promise<{ name: string }[]> {
  const schema = requireSchemaName(options.schema ?? 'public');
  const pg = loadDriver<typeof import('pg')>('pg');
  const { runner } = await import('node-pg-migrate');
  const config = typeof options.databaseUrl === 'string' ? { connectionString: options.databaseUrl } : options.databaseUrl;
  const client = new pg.Client(config);
  await client.connect();
  const lockKey = migrationLockKey(schema);
  try {
    // Wait for our turn instead of failing like node-pg-migrate's own try-lock would.
    await client.query('SELECT pg_advisory_lock($1)', [lockKey]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    const run = await runner({
      dbClient: client,
      dir: findMigrationsDir(),
      ignorePattern: '(?!.*\\.sql$).*', // only the .sql files
      migrationsTable: MIGRATIONS_TABLE,
      schema,
      direction: options.direction ?? 'up',
      count: options.count ?? (options.direction === 'down' ? 1 : undefined),
      noLock: true,
      checkOrder: options.checkOrder ?? true,
      singleTransaction: options.singleTransaction ?? true,
      dryRun: options.dryRun,
      fake: options.fake,
      verbose: options.verbose ?? false,
      logger: quietLogger(options.log, options.verbose ?? false),
    });
    return run.map((m) => ({ name: m.name }));
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [lockKey]).catch(() => undefined);
    await client.end();
  }
}

/**
 * node-pg-migrate expects 13- or 17-digit timestamp prefixes and logs an error for our
 * `001_` numbering, although it orders such files correctly; drop that line.
 */
function quietLogger(log: ((message: string) => void) | undefined, verbose: boolean) {
  const write = (fallback: (message: string) => void) => (message: string) => {
    if (!String(message).startsWith("Can't determine timestamp for")) (log ?? fallback)(message);
  };
  const silent = () => undefined;
  return {
    debug: verbose ? write(console.log) : silent,
    info: verbose || log ? write(console.log) : silent,
    warn: write(console.warn),
    error: write(console.error),
  };
}
