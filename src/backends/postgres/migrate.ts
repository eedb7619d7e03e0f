/**
 * Applies the shipped migrations (migrations/*.sql) to a schema, history in
 * `<schema>.queuedev_migrations`. Used by `queue-cli migrate` and by the test harness.
 *
 * Each file holds an `-- Up Migration` and a `-- Down Migration` section. Releases up to 0.1
 * applied them with node-pg-migrate; this runner keeps its history table (same name, columns and
 * order) and its advisory lock key, so databases migrated before carry on, and it needs nothing
 * but `pg`.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Client, ClientConfig } from 'pg';
import { checkIdentifier } from '../../checks.js';
import { quoteIdent } from '../../config.js';
import { ConfigError } from '../../errors.js';
import { loadDriver } from '../../load-driver.js';
import { findMigrationsDir } from './migrations-dir.js';

export const MIGRATIONS_TABLE = 'queuedev_migrations';
/** The environment variable `queue-cli migrate` reads the connection string from. */
export const DATABASE_ENV = 'PG_QUEUE_DATABASE';


export interface MigrateOptions {
  /** Connection string, or pg client settings (e.g. with `ssl`). */
  databaseUrl: string | ClientConfig;
  /** Schema of the queue's tables; created when missing. @default 'public' */
  schema?: string;
  /** @default 'up' */
  direction?: 'up' | 'down';
  /** Migrations to run (down: how many to undo). @default all for up, 1 for down */
  count?: number;
  /** Report what would run without changing the database. @default false */
  dryRun?: boolean;
  /** Where progress lines go ("Applied 001_initial"). @default nowhere */
  log?: (message: string) => void;
  /** Also log each migration's SQL before it runs. @default false */
  verbose?: boolean;
}

/** One shipped migration file, split into its two sections. */
export interface MigrationFile {
  name: string;
  up: string;
  down: string | undefined;
}

/** A migration failed; its transaction was rolled back, the ones before it stay applied. */
export class MigrationError extends Error {
  readonly migration: string;
  constructor(migration: string, direction: 'up' | 'down', cause: unknown) {
    const verb = direction === 'up' ? 'applying' : 'undoing';
    super(`${verb} migration ${migration} failed, nothing of it was kept: ${(cause as Error).message}`, { cause });
    this.name = 'MigrationError';
    this.migration = migration;
  }
}

/** Validates a schema name (an SQL identifier) for migrate and the CLI. */
export function requireSchemaName(schema: unknown, field = 'schema'): string {
  return checkIdentifier(ConfigError, field, schema);
}

/**
 * The advisory lock that makes migrations of one schema take turns (a different key per schema).
 * The key is the one earlier releases used, so an old and a new version deploying at once still
 * take turns.
 */
export function migrationLockKey(schema: string): number {
  return Number(createHash('sha256').update(`queuedev:migrate:${schema}`).digest().readBigUInt64BE(0) >> 12n);
}

// The section markers node-pg-migrate understood, so the files stay as they are.
const UP_MARKER = /^\s*--[\s-]*up\s+migration/im;
const DOWN_MARKER = /^\s*--[\s-]*down\s+migration/im;

/** Splits a migration file into its up and down SQL. */
export function parseMigration(name: string, text: string): MigrationFile {
  const upAt = text.search(UP_MARKER);
  const downAt = text.search(DOWN_MARKER);
  const up = upAt < 0 ? (downAt < 0 ? text : text.slice(0, downAt)) : text.slice(upAt, downAt > upAt ? downAt : undefined);
  const down = downAt < 0 ? undefined : text.slice(downAt, upAt > downAt ? upAt : undefined);
  return { name, up, down };
}

/** The shipped migrations, in the order they apply (their numeric file-name prefix). */
export function readMigrations(dir: string = findMigrationsDir()): MigrationFile[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => parseMigration(file.slice(0, -'.sql'.length), readFileSync(join(dir, file), 'utf8')));
}

/**
 * Applies (or undoes) the shipped migrations on `schema`, creating it when missing, one
 * transaction per migration. Safe to call from several processes at once: runs on the same
 * schema wait for each other (advisory lock), runs on different schemas proceed in parallel.
 * Resolves with the migrations it ran (or, with `dryRun`, would run), in order.
 */
export async function migrate(options: MigrateOptions): Promise<{ name: string }[]> {
  const schema = requireSchemaName(options.schema ?? 'public');
  const direction = options.direction ?? 'up';
  const log = options.log ?? (() => undefined);
  const files = readMigrations();
  const pg = loadDriver<typeof import('pg')>('pg');
  const client = new pg.Client(typeof options.databaseUrl === 'string' ? { connectionString: options.databaseUrl } : options.databaseUrl);
  // A failed connect leaves nothing to close, and a dropped connection must not crash the process.
  client.on('error', () => undefined);
  await client.connect();
  const lockKey = migrationLockKey(schema);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [lockKey]);
    const applied = await appliedMigrations(client, schema);
    checkHistory(files, applied, schema);
    const plan =
      direction === 'up'
        ? files.slice(applied.length, options.count === undefined ? undefined : applied.length + options.count)
        : files.slice(Math.max(0, applied.length - (options.count ?? 1)), applied.length).reverse();
    if (plan.length === 0) {
      log('No migrations to run');
      return [];
    }
    if (options.dryRun) {
      for (const m of plan) log(`dry run: would ${direction === 'up' ? 'apply' : 'undo'} ${m.name}`);
      return plan.map((m) => ({ name: m.name }));
    }
    await prepareSchema(client, schema);
    for (const m of plan) {
      await runOne(client, schema, m, direction, options.verbose ? log : undefined);
      log(`${direction === 'up' ? 'Applied' : 'Undid'} ${m.name}`);
    }
    return plan.map((m) => ({ name: m.name }));
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [lockKey]).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

/** Names in the history table, oldest first; none when the table does not exist yet. */
async function appliedMigrations(client: Client, schema: string): Promise<string[]> {
  const { rows } = await client.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [
    `${quoteIdent(schema)}.${MIGRATIONS_TABLE}`,
  ]);
  if (!rows[0]?.exists) return [];
  const history = await client.query<{ name: string }>(`SELECT name FROM ${quoteIdent(schema)}.${MIGRATIONS_TABLE} ORDER BY run_on, id`);
  return history.rows.map((r) => r.name);
}

/** The history must be the first shipped migrations, in order; anything else needs a person. */
function checkHistory(files: MigrationFile[], applied: string[], schema: string): void {
  applied.forEach((name, i) => {
    if (files[i]?.name === name) return;
    const known = files.some((f) => f.name === name);
    throw new Error(
      known
        ? `${schema}.${MIGRATIONS_TABLE} lists ${name} out of order (expected ${files[i]?.name ?? 'nothing'} at position ${i + 1}); repair the table before migrating`
        : `${schema}.${MIGRATIONS_TABLE} lists ${name}, which this version of queuedev does not ship; upgrade queuedev before migrating`,
    );
  });
}

/** Creates the schema and the history table (the layout node-pg-migrate created). */
async function prepareSchema(client: Client, schema: string): Promise<void> {
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${quoteIdent(schema)}.${MIGRATIONS_TABLE} (id SERIAL PRIMARY KEY, name varchar(255) NOT NULL, run_on timestamp NOT NULL)`,
  );
  // The files use unqualified names: they land in the schema on this connection's search_path.
  await client.query(`SET search_path TO ${quoteIdent(schema)}`);
}

async function runOne(
  client: Client,
  schema: string,
  m: MigrationFile,
  direction: 'up' | 'down',
  logSql: ((message: string) => void) | undefined,
): Promise<void> {
  const sql = direction === 'up' ? m.up : m.down;
  if (sql === undefined) throw new MigrationError(m.name, direction, new Error('the file has no "-- Down Migration" section'));
  logSql?.(sql);
  const table = `${quoteIdent(schema)}.${MIGRATIONS_TABLE}`;
  try {
    await client.query('BEGIN');
    // Multi-statement text goes through the simple query protocol, as one batch.
    await client.query(sql);
    if (direction === 'up') await client.query(`INSERT INTO ${table} (name, run_on) VALUES ($1, NOW())`, [m.name]);
    else await client.query(`DELETE FROM ${table} WHERE name = $1`, [m.name]);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw new MigrationError(m.name, direction, err);
  }
}
