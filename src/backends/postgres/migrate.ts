/**
 * Applies the shipped migrations (migrations/*.sql) to a schema, history in
 * `<schema>.queuedev_migrations`. `migrate()` is public (exported by the package) and is the
 * one path every caller takes: `queue-cli migrate`, the test harness, the benchmark and the
 * examples, so what users run is what the tests run.
 *
 * Each file holds an `-- Up Migration` and a `-- Down Migration` section. Releases up to 0.1
 * applied them with node-pg-migrate; this runner keeps its history table (same name, columns and
 * order) and its advisory lock key, so databases migrated before carry on, and it needs nothing
 * but `pg` (or, on an embedded database, `@electric-sql/pglite`).
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  checkBoolean,
  checkFunction,
  checkIdentifier,
  checkKnownKeys,
  checkObject,
  checkOneOf,
  ensure,
  fail,
  isObject,
} from '../../checks.js';
import { quoteIdent } from '../../config.js';
import { ConfigError } from '../../errors.js';
import { loadDriver } from '../../load-driver.js';
import type { PGliteInstance, PostgresPool, Queryable } from '../../types.js';
import { findMigrationsDir } from './migrations-dir.js';
import { inTurn, pgliteQueryable } from './pglite.js';
import { lockInstanceDataDir } from './pglite-lock.js';

export const MIGRATIONS_TABLE = 'queuedev_migrations';
/** The environment variable `queue-cli migrate` reads the connection string from. */
export const DATABASE_ENV = 'PG_QUEUE_DATABASE';

/**
 * Options of {@link migrate}. Give the database as one of `databaseUrl`, an open `pool` or a
 * `pglite` instance.
 * @example await migrate({ databaseUrl: process.env.DATABASE_URL, schema: 'billing_queue' })
 */
export interface MigrateOptions {
  /**
   * Connection string of the database; migrate opens one connection and closes it when done.
   * @default none: give `pool` instead
   * @example databaseUrl: 'postgres://app:secret@localhost:5432/app'
   */
  databaseUrl?: string | undefined;
  /**
   * An open pool (any `pg.Pool`, e.g. from `createPool()`): migrate checks out one connection
   * and returns it; the pool stays open and its connections keep their settings.
   * @default none: give `databaseUrl` instead
   * @example pool: createPool({ connectionString: process.env.DATABASE_URL, ssl: { ca: 'file:///etc/ssl/db-ca.pem' } })
   */
  pool?: PostgresPool | undefined;
  /**
   * A PGlite instance (an embedded PostgreSQL): migrate runs on it and leaves it open.
   * @default none: give `databaseUrl` or `pool` instead
   * @example pglite: await PGlite.create('./queue-data')
   */
  pglite?: PGliteInstance | undefined;
  /**
   * Schema of the queue's tables; created when missing. Give the queue the same `schema`.
   * @default 'public'
   * @example schema: 'billing_queue'
   */
  schema?: string | undefined;
  /**
   * `'up'` applies pending migrations, `'down'` undoes applied ones, newest first.
   * @default 'up'
   * @example direction: 'down'
   */
  direction?: 'up' | 'down' | undefined;
  /**
   * How many migrations to run (for `'down'`, how many to undo).
   * @default every pending one for 'up', 1 for 'down'
   * @example count: 1
   */
  count?: number | undefined;
  /**
   * Report what would run, through `log` and the result, without changing the database.
   * @default false
   * @example dryRun: true
   */
  dryRun?: boolean | undefined;
  /**
   * Where progress lines go ("Applied 001_initial").
   * @default nowhere
   * @example log: console.log
   */
  log?: ((message: string) => void) | undefined;
  /**
   * Also pass each migration's SQL to `log` before it runs.
   * @default false
   * @example verbose: true
   */
  verbose?: boolean | undefined;
}

/** A migration that {@link migrate} ran (or, with `dryRun`, would run). */
export interface MigrationRun {
  /** The file name without `.sql`, e.g. `001_initial`. */
  name: string;
}

const MIGRATE_KEYS = ['databaseUrl', 'pool', 'pglite', 'schema', 'direction', 'count', 'dryRun', 'log', 'verbose'];

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
  const up =
    upAt < 0 ? (downAt < 0 ? text : text.slice(0, downAt)) : text.slice(upAt, downAt > upAt ? downAt : undefined);
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

/** The options of migrate(), checked: a ConfigError names the field, the rule and the value. */
function checkOptions(options: unknown): MigrateOptions & { schema: string; direction: 'up' | 'down' } {
  const E = ConfigError;
  const checked = checkObject(E, 'options', options, 'an object (the options of migrate())');
  checkKnownKeys(E, '', checked, MIGRATE_KEYS, 'migrate options');
  const o = checked as MigrateOptions;
  const targets = (['databaseUrl', 'pool', 'pglite'] as const).filter((k) => o[k] !== undefined);
  if (targets.length > 1) {
    throw new ConfigError(
      `Give one of \`databaseUrl\`, \`pool\` or \`pglite\`, not ${targets.map((k) => `\`${k}\``).join(' and ')}: each names the database to migrate`,
    );
  }
  if (targets.length === 0) fail(E, 'databaseUrl', 'a connection string (or give `pool` or `pglite`)', undefined);
  if (o.databaseUrl !== undefined) {
    ensure(
      E,
      typeof o.databaseUrl === 'string' && o.databaseUrl.length > 0,
      'databaseUrl',
      'a non-empty connection string',
      o.databaseUrl,
    );
  }
  if (o.pool !== undefined) {
    ensure(
      E,
      isObject(o.pool) && typeof o.pool.connect === 'function',
      'pool',
      'a pg.Pool (an object with connect())',
      o.pool,
    );
  }
  if (o.pglite !== undefined) {
    ensure(
      E,
      isObject(o.pglite) && typeof o.pglite.exec === 'function' && typeof o.pglite.query === 'function',
      'pglite',
      'a PGlite instance (an object with query() and exec())',
      o.pglite,
    );
  }
  const direction = o.direction === undefined ? 'up' : checkOneOf(E, 'direction', o.direction, ['up', 'down'] as const);
  if (o.count !== undefined) {
    ensure(
      E,
      typeof o.count === 'number' && Number.isInteger(o.count) && o.count >= 1,
      'count',
      'a positive integer',
      o.count,
    );
  }
  for (const flag of ['dryRun', 'verbose'] as const) {
    if (o[flag] !== undefined) checkBoolean(E, flag, o[flag]);
  }
  if (o.log !== undefined) checkFunction(E, 'log', o.log);
  return { ...o, schema: requireSchemaName(o.schema ?? 'public'), direction };
}

/** Where a run executes: statements outside the migrations' transactions, and those transactions. */
interface MigrationSession {
  client: Queryable;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction(fn: (tx: Queryable) => Promise<void>): Promise<void>;
  close(failed: boolean): Promise<void>;
}

/** BEGIN and COMMIT on a connection of the run's own. */
function onConnection(client: Queryable, close: (failed: boolean) => Promise<void>): MigrationSession {
  return {
    client,
    async transaction(fn) {
      await client.query('BEGIN');
      try {
        await fn(client);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    },
    close,
  };
}

/**
 * The session of the run: a connection checked out of the caller's pool or opened from the URL;
 * on PGlite, the instance, whose one session its other users share, so each migration runs in
 * PGlite's own transaction(), which keeps their statements out of it.
 */
async function openSession(options: MigrateOptions): Promise<MigrationSession> {
  if (options.pglite) {
    const pglite = options.pglite;
    // Its data directory is locked for the run, or shared with the queue that holds it already.
    const release = lockInstanceDataDir(pglite);
    return {
      client: pgliteQueryable(pglite),
      transaction: (fn) => pglite.transaction((tx) => fn(pgliteQueryable(tx))),
      // The instance is the caller's: it stays open.
      close: () => {
        release();
        return Promise.resolve();
      },
    };
  }
  if (options.pool) {
    const client = await options.pool.connect();
    // A connection whose run failed may be mid-transaction: the pool discards it instead of reusing it.
    return onConnection(client, (failed) => {
      client.release(failed || undefined);
      return Promise.resolve();
    });
  }
  const pg = loadDriver('pg');
  const client = new pg.Client({ connectionString: options.databaseUrl });
  // A failed connect leaves nothing to close, and a dropped connection must not crash the process.
  client.on('error', () => undefined);
  await client.connect();
  return onConnection(client, () => client.end().catch(() => undefined));
}

/**
 * Applies (or undoes) the shipped migrations on `schema`, creating it when missing, one
 * transaction per migration. Safe to call from several processes at once: runs on the same
 * schema wait for each other (advisory lock), runs on different schemas proceed in parallel.
 * Resolves with the migrations it ran (or, with `dryRun`, would run), in order. Bad options
 * reject with a ConfigError before anything connects; a failed migration rejects with an error
 * naming it, its transaction rolled back and the ones before it kept.
 * @example await migrate({ databaseUrl: process.env.PG_QUEUE_DATABASE, schema: 'billing_queue' })
 */
export async function migrate(options: MigrateOptions): Promise<MigrationRun[]> {
  const checked = checkOptions(options);
  // One PGlite session holds every advisory lock it asks for, so the lock below cannot make two
  // runs on one instance take turns: they take turns in the process instead.
  return checked.pglite ? inTurn(checked.pglite, () => run(checked)) : run(checked);
}

async function run(options: ReturnType<typeof checkOptions>): Promise<MigrationRun[]> {
  const { schema, direction, count, dryRun, verbose } = options;
  const log = options.log ?? (() => undefined);
  const files = readMigrations();
  const session = await openSession(options);
  const { client } = session;
  const lockKey = migrationLockKey(schema);
  let failed = false;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [lockKey]);
    const applied = await appliedMigrations(client, schema);
    checkHistory(files, applied, schema);
    const plan =
      direction === 'up'
        ? files.slice(applied.length, count === undefined ? undefined : applied.length + count)
        : files.slice(Math.max(0, applied.length - (count ?? 1)), applied.length).reverse();
    if (plan.length === 0) {
      log('No migrations to run');
      return [];
    }
    if (dryRun) {
      for (const m of plan) log(`dry run: would ${direction === 'up' ? 'apply' : 'undo'} ${m.name}`);
      return plan.map((m) => ({ name: m.name }));
    }
    await prepareSchema(client, schema);
    for (const m of plan) {
      await runOne(session, schema, m, direction, verbose ? log : undefined);
      log(`${direction === 'up' ? 'Applied' : 'Undid'} ${m.name}`);
    }
    return plan.map((m) => ({ name: m.name }));
  } catch (err) {
    failed = true;
    throw err;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [lockKey]).catch(() => {
      failed = true;
    });
    await session.close(failed);
  }
}

/** Names in the history table, oldest first; none when the table does not exist yet. */
async function appliedMigrations(client: Queryable, schema: string): Promise<string[]> {
  const { rows } = (await client.query('SELECT to_regclass($1) IS NOT NULL AS exists', [
    `${quoteIdent(schema)}.${MIGRATIONS_TABLE}`,
  ])) as { rows: { exists: boolean }[] };
  if (!rows[0]?.exists) return [];
  const history = await client.query(`SELECT name FROM ${quoteIdent(schema)}.${MIGRATIONS_TABLE} ORDER BY run_on, id`);
  return history.rows.map((r: { name: string }) => r.name);
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
async function prepareSchema(client: Queryable, schema: string): Promise<void> {
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${quoteIdent(schema)}.${MIGRATIONS_TABLE} (id SERIAL PRIMARY KEY, name varchar(255) NOT NULL, run_on timestamp NOT NULL)`,
  );
}

async function runOne(
  session: MigrationSession,
  schema: string,
  m: MigrationFile,
  direction: 'up' | 'down',
  logSql: ((message: string) => void) | undefined,
): Promise<void> {
  const sql = direction === 'up' ? m.up : m.down;
  if (sql === undefined)
    throw new MigrationError(m.name, direction, new Error('the file has no "-- Down Migration" section'));
  logSql?.(sql);
  const table = `${quoteIdent(schema)}.${MIGRATIONS_TABLE}`;
  try {
    await session.transaction(async (tx) => {
      // The files use unqualified names: they land in the schema on the search_path. LOCAL, so a
      // pool's connection goes back with the search_path it came with.
      await tx.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
      // Multi-statement text goes through the simple query protocol, as one batch.
      await tx.query(sql);
      if (direction === 'up') await tx.query(`INSERT INTO ${table} (name, run_on) VALUES ($1, NOW())`, [m.name]);
      else await tx.query(`DELETE FROM ${table} WHERE name = $1`, [m.name]);
    });
  } catch (err) {
    throw new MigrationError(m.name, direction, err);
  }
}
