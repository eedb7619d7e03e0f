/**
 * A connection refused because its database does not exist (SQLSTATE 3D000,
 * invalid_catalog_name), as the typed StoreUnavailableError (reason `database-missing`) that
 * names the database and how to create it: for the queue, migrate() and `queue-cli migrate`.
 */
import { StoreUnavailableError } from '../../errors.js';
import { errorChain } from '../../store-errors.js';

const INVALID_CATALOG_NAME = '3D000';
/** The server's message: `database "app" does not exist`. */
const MISSING = /database "(.*)" does not exist/;

/** `name` quoted for a shell when it needs it. */
function shellWord(name: string): string {
  return /^[\w.-]+$/.test(name) ? name : `'${name.replaceAll("'", `'\\''`)}'`;
}

/**
 * The typed error for `err` when it says the database is missing, else undefined. `clean` is
 * `err` without credentials (the cause); `settings` names where the database name was given,
 * `server` (host:port) where it was looked for, when known.
 */
export function missingDatabaseError(
  err: unknown,
  clean: unknown,
  where: { settings?: string; server?: string } = {},
): StoreUnavailableError | undefined {
  const settings = where.settings ?? "the queue's connection settings";
  const chain = errorChain(err);
  const found = chain.find((e) => e.code === INVALID_CATALOG_NAME);
  if (!found) return undefined;
  const name = MISSING.exec(typeof found.message === 'string' ? found.message : '')?.[1];
  const what =
    (name === undefined ? 'The PostgreSQL database' : `PostgreSQL database "${name}"`) +
    (where.server === undefined ? '' : ` on ${where.server}`);
  const create =
    name === undefined
      ? 'create it with createdb or CREATE DATABASE'
      : `create it (\`createdb ${shellWord(name)}\` on the server, or \`CREATE DATABASE "${name.replaceAll('"', '""')}"\` as a user allowed to create databases)`;
  return new StoreUnavailableError(
    'database-missing',
    `${what} does not exist: ${create}, or fix the database name in ${settings}`,
    { cause: clean },
  );
}
