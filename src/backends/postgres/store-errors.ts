/**
 * Which PostgreSQL errors mean "the store cannot serve" (a database that does not exist among
 * them, missing-database.ts), which mean "the schema was never migrated" and which mean "the
 * store refused the values written", for the backend's one translation seam (src/store-errors.ts).
 */
import type { Pool } from 'pg';
import { NotMigratedError, type StoreUnavailableReason } from '../../errors.js';
import {
  SOCKET_CODES,
  errorChain,
  secretsOf,
  storeErrorTranslator,
  type StoreErrorTranslator,
} from '../../store-errors.js';
import type { Fact } from '../../store-facts.js';
import { DATABASE_ENV } from './migrate.js';
import { missingDatabaseError } from './missing-database.js';

/** SQLSTATEs of a server that refuses work for now: admin/crash shutdown, starting up, too many connections. */
const SERVER_STATES = new Set(['57P01', '57P02', '57P03', '53300', '53000']);
/** invalid_authorization_specification, invalid_password. */
const AUTH_STATES = new Set(['28000', '28P01']);
/** Messages pg and pg-pool raise without a code. */
const CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /is not queryable/,
  /^Client was closed and is not queryable/,
];
/** pg-pool after end(); PGlite after (or while) close() ran. */
const CLOSED_MESSAGES = [/^Cannot use a pool after calling end on the pool/, /^PGlite is clos(ed|ing)/];
/**
 * undefined_table, undefined_function and undefined_column: a table, function or column of the
 * migrations is missing (a column: the schema is short of a later migration, such as 011);
 * invalid_schema_name: the schema itself is (a statement that names it, such as a call of one of
 * its functions).
 */
const MISSING_OBJECT_STATES = new Set(['42P01', '42883', '42703', '3F000']);
/**
 * SQLSTATE classes caused by the values written: 22 data exception, 23 integrity constraint
 * violation. Only these are final: the completion buffer stops retrying such a write and deals
 * with its one bad job, while connection errors are retried as before.
 */
const REJECTION_CLASSES = new Set(['22', '23']);

/** The SQLSTATE of a driver error, also when it was wrapped (looked up along `cause`). */
function sqlState(err: unknown): string | undefined {
  for (const e of errorChain(err)) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  }
  return undefined;
}

/** The refusal of the values `operation` wrote, when `err` is one. */
function valuesRejected(err: unknown, operation: string): Fact | undefined {
  const state = sqlState(err);
  if (state === undefined || !REJECTION_CLASSES.has(state.slice(0, 2))) return undefined;
  const detail = err instanceof Error ? err.message : String(err);
  return { kind: 'values-rejected', store: 'PostgreSQL', operation, sqlState: state, detail };
}

export function postgresUnavailableReason(err: unknown): StoreUnavailableReason | undefined {
  for (const e of errorChain(err)) {
    const code = typeof e.code === 'string' ? e.code : '';
    const message = typeof e.message === 'string' ? e.message : '';
    if (AUTH_STATES.has(code)) return 'authentication';
    if (SERVER_STATES.has(code)) return 'server';
    if (SOCKET_CODES.has(code) || code.startsWith('08')) return 'connection';
    if (CLOSED_MESSAGES.some((m) => m.test(message))) return 'closed';
    if (CONNECTION_MESSAGES.some((m) => m.test(message))) return 'connection';
  }
  return undefined;
}

/** The command that creates the queue's tables in `schema`. */
export function migrateCommand(schema: string): string {
  return `${DATABASE_ENV}=<connection string> npx queue-cli migrate --schema ${schema}`;
}

/** The passwords of a pool's settings. */
export function poolSecrets(pool: Pool): string[] {
  // pg.Pool keeps its settings in `options`; a password may also sit in the connection string.
  const options = (pool as unknown as { options?: { password?: unknown; connectionString?: unknown } }).options ?? {};
  return secretsOf(options.password, urlPassword(options.connectionString));
}

/**
 * The translation for one queue: its schema (for NotMigratedError; null while the schema is not
 * known yet, read at each error) and its connection's passwords (masked in every error it lets
 * through). PGlite's errors carry the same SQLSTATE `code` as pg's, so one set of rules serves both.
 */
export function postgresErrorTranslator(
  currentSchema: () => string | null,
  secrets: readonly string[],
): StoreErrorTranslator {
  return storeErrorTranslator({
    store: 'PostgreSQL',
    secrets,
    unavailable: postgresUnavailableReason,
    fact: valuesRejected,
    typed(err, clean) {
      const missing = missingDatabaseError(err, clean);
      if (missing) return missing;
      const schema = currentSchema();
      const code = (err as { code?: unknown } | null)?.code;
      if (schema === null || typeof code !== 'string' || !MISSING_OBJECT_STATES.has(code)) return undefined;
      const detail = (err as Error).message;
      // Every statement of the backend names only the queue's own schema, so a missing table or
      // function there means the migrations were not run (or not all of them).
      return new NotMigratedError(
        schema,
        (code === '42703'
          ? `The queue's tables in PostgreSQL schema "${schema}" lack a column this version uses (${detail}): not every migration has been run. `
          : `The queue's tables are missing from PostgreSQL schema "${schema}" (${detail}): the migrations have not been run. `) +
          `Run them once, and on every deploy before the new version starts: ${migrateCommand(schema)}`,
        { cause: clean },
      );
    },
  });
}

function urlPassword(connectionString: unknown): string | undefined {
  if (typeof connectionString !== 'string') return undefined;
  try {
    const password = new URL(connectionString).password;
    return password ? decodeURIComponent(password) : undefined;
  } catch {
    return undefined;
  }
}
