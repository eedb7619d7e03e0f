/**
 * `queue-cli migrate` (SPEC §4.12): applies the shipped migrations with the package's public
 * migrate(), so the command, the tests and applications that migrate from code run the same
 * code. The connection string comes from PG_QUEUE_DATABASE or --database-url.
 */
import { spawn } from 'node:child_process';
import {
  DATABASE_ENV,
  MIGRATIONS_TABLE,
  migrate,
  requireSchemaName,
  type MigrateOptions,
} from '../backends/postgres/migrate.js';
import { missingDatabaseError } from '../backends/postgres/missing-database.js';
import { checkPostgresConnectionString } from '../connection-strings.js';
import { loadDriver } from '../load-driver.js';
import { UsageError } from './args.js';
import { loadEnvFile } from './env-file.js';

export { DATABASE_ENV };

export const MIGRATE_USAGE = `Usage: queue-cli migrate [up|down|redo] [count] [options]

Applies the queuedev PostgreSQL migrations. The connection string is read from ${DATABASE_ENV}.
up applies every pending migration (or the next [count]); down undoes the last one (or the last
[count]); redo undoes and reapplies the last one (or the last [count]).

Options:
  --database-url <url>      connection string; default: the ${DATABASE_ENV} variable
  --envPath <file>          load environment variables from this file first
  -s, --schema <name>       schema of the queue's tables (created when missing), default public
  --dry-run                 print what would run, change nothing
  --verbose                 also print each migration's SQL
  --no-reject-unauthorized  accept a server certificate no trusted CA signed

A custom CA for the connection goes in NODE_EXTRA_CA_CERTS (a file path). Applied migrations
are recorded in <schema>.${MIGRATIONS_TABLE}.`;

export interface ParsedArgs {
  action: 'up' | 'down' | 'redo';
  count?: number;
  databaseUrl?: string;
  envPath?: string;
  schema: string;
  dryRun: boolean;
  verbose: boolean;
  rejectUnauthorized: boolean;
}

export function parseMigrateArgs(args: string[]): ParsedArgs {
  const parsed: ParsedArgs = {
    action: 'up',
    schema: 'public',
    dryRun: false,
    verbose: false,
    rejectUnauthorized: true,
  };
  let sawAction = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      if (eq > 0) return arg.slice(eq + 1);
      const next = args[++i];
      if (next === undefined || next.startsWith('-')) throw new UsageError(`${name} needs a value`);
      return next;
    };
    if (name === '--envPath' || name === '--env-path') parsed.envPath = value();
    else if (name === '-s' || name === '--schema') parsed.schema = value();
    else if (name === '--database-url') parsed.databaseUrl = value();
    else if (name === '--dry-run') parsed.dryRun = true;
    else if (name === '--verbose') parsed.verbose = true;
    else if (name === '--no-reject-unauthorized') parsed.rejectUnauthorized = false;
    else if (!sawAction && (arg === 'up' || arg === 'down' || arg === 'redo')) {
      parsed.action = arg;
      sawAction = true;
    } else if (parsed.count === undefined && /^[1-9][0-9]*$/.test(arg)) parsed.count = Number(arg);
    else throw new UsageError(`unknown argument "${arg}"`);
  }
  try {
    requireSchemaName(parsed.schema, '--schema');
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  return parsed;
}

// Node reads NODE_EXTRA_CA_CERTS once, at startup: note what the process started with.
const startupExtraCA = process.env.NODE_EXTRA_CA_CERTS;

/** Runs the command; resolves with the exit code. Failures reject with a one-line message. */
export async function runMigrate(args: string[]): Promise<number> {
  const parsed = parseMigrateArgs(args);
  if (parsed.envPath !== undefined) loadEnvFile(parsed.envPath);
  // An --envPath file that sets a CA file needs a fresh Node process to take it in.
  if (process.env.NODE_EXTRA_CA_CERTS !== startupExtraCA) return rerunWithEnvironment();
  const fromFlag = parsed.databaseUrl !== undefined;
  const url = parsed.databaseUrl ?? process.env[DATABASE_ENV];
  if (url === undefined || (!fromFlag && url.trim() === '')) {
    throw new UsageError(
      `${DATABASE_ENV} is ${url === undefined ? 'not set' : 'empty'}. Set it to the database's connection string, e.g. ` +
        `${DATABASE_ENV}=postgres://user:password@localhost:5432/app queue-cli migrate, pass --database-url, or put it in a file passed with --envPath.`,
    );
  }
  // Checked here, so the message names the variable (or flag) to fix rather than migrate()'s option.
  checkPostgresConnectionString(fromFlag ? '--database-url' : DATABASE_ENV, url);
  // --no-reject-unauthorized needs TLS settings beside the URL: a one-connection pg pool carries
  // them (as pg merges them, so an sslmode in the URL still wins), closed when the command ends.
  const pool = parsed.rejectUnauthorized
    ? undefined
    : new (loadDriver('pg').Pool)({
        connectionString: url,
        ssl: { rejectUnauthorized: false },
        max: 1,
      });
  pool?.on('error', () => undefined);
  const database: Pick<MigrateOptions, 'databaseUrl' | 'pool'> = pool ? { pool } : { databaseUrl: url };
  const log = (message: string) => console.log(message);
  const run = (direction: 'up' | 'down', count: number | undefined) =>
    migrate({
      ...database,
      schema: parsed.schema,
      direction,
      count,
      dryRun: parsed.dryRun,
      verbose: parsed.verbose,
      log,
    });
  try {
    if (parsed.action === 'redo') {
      const undone = await run('down', parsed.count ?? 1);
      // A dry run undid nothing, so the up pass would find nothing to apply: say what it would.
      if (parsed.dryRun) for (const m of [...undone].reverse()) log(`dry run: would apply ${m.name}`);
      else if (undone.length > 0) await run('up', undone.length);
    } else {
      await run(parsed.action, parsed.count);
    }
  } catch (err) {
    throw new Error(describeFailure(err, url), { cause: err });
  } finally {
    await pool?.end().catch(() => undefined);
  }
  return 0;
}

function rerunWithEnvironment(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
      stdio: 'inherit',
      env: process.env,
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** Where the command tried to connect, without the password. */
function targetOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname.length > 1 ? u.pathname : ''}`;
  } catch {
    return 'the database';
  }
}

/** host:port of the URL, without the database; undefined when it does not parse. */
function serverOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}`;
  } catch {
    return undefined;
  }
}

/** One line: what went wrong and what to do about it. */
export function describeFailure(err: unknown, url: string): string {
  // Anything can be thrown, null included.
  const e = err as (Error & { code?: string }) | null | undefined;
  const where = targetOf(url);
  const message = (e?.message ?? String(err)).split('\n')[0] ?? '';
  const fixUrl = `check that PostgreSQL is running there and that ${DATABASE_ENV} (or --database-url) names it`;
  switch (e?.code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
      return `cannot connect to PostgreSQL at ${where} (${e.code}): ${fixUrl}`;
    case '28P01':
    case '28000':
      return `PostgreSQL at ${where} refused the login (${message}): fix the user or password in ${DATABASE_ENV} (or --database-url)`;
    case 'STORE_UNAVAILABLE': {
      const missing = missingDatabaseError(err, undefined, {
        settings: `${DATABASE_ENV} (or --database-url)`,
        server: serverOf(url),
      });
      return missing?.message ?? message;
    }
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return `cannot verify the certificate of PostgreSQL at ${where} (${message}): set NODE_EXTRA_CA_CERTS to the CA file, or pass --no-reject-unauthorized`;
    default:
      return message;
  }
}
