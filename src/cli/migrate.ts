/**
 * `queue-cli migrate` (SPEC §4.12): applies the shipped migrations with node-pg-migrate's own
 * command line, so every flag it knows (`--verbose`, `--no-reject-unauthorized`, `--dry-run`,
 * `down`, ...) passes straight through. The connection string comes from PG_QUEUE_DATABASE.
 * Running it as a child process also lets an `--envPath` file set NODE_EXTRA_CA_CERTS, which
 * Node reads only at startup.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { findMigrationsDir } from '../backends/postgres/migrations-dir.js';
import { DATABASE_ENV, MIGRATIONS_TABLE, migrationLockKey, requireSchemaName } from '../backends/postgres/migrate.js';
import { loadEnvFile } from './env-file.js';

export { DATABASE_ENV };

export const MIGRATE_USAGE = `Usage: queue-cli migrate [up|down|redo] [options]

Applies the queuedev PostgreSQL migrations. The connection string is read from ${DATABASE_ENV}.

Options:
  --envPath <file>      load environment variables from this file first
  -s, --schema <name>   schema of the queue's tables (created when missing), default public
  other options         passed to node-pg-migrate, e.g. --verbose, --no-reject-unauthorized,
                        --dry-run; see npx node-pg-migrate --help

A custom CA for the connection goes in NODE_EXTRA_CA_CERTS (a file path). Applied migrations
are recorded in <schema>.${MIGRATIONS_TABLE}.`;

/** A problem with the command line, reported with the usage and exit code 1. */
export class UsageError extends Error {}

interface ParsedArgs {
  envPath?: string;
  schema: string;
  action: string;
  passThrough: string[];
}

/** Takes out the options queue-cli handles itself; everything else is node-pg-migrate's. */
export function parseMigrateArgs(args: string[]): ParsedArgs {
  let envPath: string | undefined;
  let schema = 'public';
  let action: string | undefined;
  const passThrough: string[] = [];
  const valueOf = (flag: string, i: number): string => {
    const value = args[i + 1];
    if (value === undefined || value.startsWith('-')) throw new UsageError(`${flag} needs a value`);
    return value;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (name === '--envPath' || name === '--env-path') {
      envPath = inline ?? valueOf(name, i++);
    } else if (name === '-s' || name === '--schema') {
      schema = inline ?? valueOf(name, i++);
    } else if (['-m', '--migrations-dir', '-t', '--migrations-table', '-d', '--database-url-var', '--migrations-schema'].includes(name)) {
      throw new UsageError(`${name} is set by queue-cli and cannot be changed`);
    } else if (action === undefined && ['up', 'down', 'redo'].includes(arg)) {
      action = arg;
    } else {
      passThrough.push(arg);
    }
  }
  try {
    requireSchemaName(schema, '--schema');
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  return { envPath, schema, action: action ?? 'up', passThrough };
}

/** Runs the command; resolves with the exit code. */
export async function runMigrate(args: string[]): Promise<number> {
  const parsed = parseMigrateArgs(args);
  if (parsed.envPath !== undefined) loadEnvFile(parsed.envPath);
  if (!process.env[DATABASE_ENV]) {
    throw new UsageError(
      `${DATABASE_ENV} is not set. Set it to the database's connection string, e.g. ` +
        `${DATABASE_ENV}=postgres://user:password@localhost:5432/app queue-cli migrate, or put it in a file passed with --envPath.`,
    );
  }
  const bin = createRequire(import.meta.url).resolve('node-pg-migrate/bin/node-pg-migrate');
  const userSetVerbose = parsed.passThrough.some((a) => /^--(no-)?verbose(=|$)/.test(a));
  const childArgs = [
    bin,
    parsed.action,
    '--migrations-dir', findMigrationsDir(),
    '--migrations-table', MIGRATIONS_TABLE,
    '--database-url-var', DATABASE_ENV,
    '--schema', parsed.schema,
    '--create-schema',
    // Only the .sql files are migrations.
    '--ignore-pattern', '(?!.*\\.sql$).*',
    // The same lock as the library's migrate(), so the two never run on one schema at once.
    '--lock-value', String(migrationLockKey(parsed.schema)),
    // node-pg-migrate prints every SQL statement by default; keep that for --verbose.
    ...(userSetVerbose ? [] : ['--no-verbose']),
    ...parsed.passThrough,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, childArgs, { stdio: ['inherit', 'inherit', 'pipe'], env: process.env });
    let pending = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop()!;
      for (const line of lines) writeStderr(line);
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (pending) writeStderr(pending);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

/** node-pg-migrate wants 13- or 17-digit timestamp prefixes and complains about `001_`, which it orders fine. */
function writeStderr(line: string): void {
  if (!line.startsWith("Can't determine timestamp for")) process.stderr.write(`${line}\n`);
}
