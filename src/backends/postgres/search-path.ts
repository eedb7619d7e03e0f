/**
 * A queue configured without `schema` follows the connection's `search_path`, as any unqualified
 * table name would (SPEC §4.12: `migrate --schema x`, then a connection that sets
 * `search_path=x`). The schema is looked up once, before the first operation, and the backend is
 * then built for it exactly as for an explicit `schema`: every statement stays schema-qualified,
 * and the NOTIFY channel and advisory lock keys name the schema, so two queues reaching different
 * schemas through their search paths never wake or block each other, and prepared statements of
 * one schema are never reused for another on a shared pool.
 */
import { IDENTIFIER } from '../../checks.js';
import { ConfigError, NotMigratedError } from '../../errors.js';
import type { Queryable } from '../../types.js';
import { migrateCommand } from './store-errors.js';

/** The migrations' first table: where the search path finds it is where all of them are. */
const FIND_SCHEMA = `
SELECT (
  SELECT n.nspname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.oid = to_regclass('job_queue')
) AS schema, current_schema() AS current, current_setting('search_path') AS search_path`;

/** The schema in which the connection's search_path finds the queue's tables. */
export async function schemaOnSearchPath(db: Queryable): Promise<string> {
  const { rows } = await db.query(FIND_SCHEMA);
  const row = rows[0] as { schema: string | null; current: string | null; search_path: string };
  const { schema, search_path: searchPath } = row;
  if (schema === null) {
    // The schema unqualified tables would be created in: the first existing one on the path,
    // else the first one named there.
    const target = row.current ?? firstNamedSchema(searchPath) ?? 'public';
    throw new NotMigratedError(
      target,
      `No queue tables (\`job_queue\`) on the connection's search_path (\`${searchPath}\`): the migrations have not been run. ` +
        `Run them for a schema on that path, or name one in the queue's \`schema\` option: ${migrateCommand(target)}`,
    );
  }
  if (!IDENTIFIER.test(schema)) {
    throw new ConfigError(
      `The connection's search_path finds the queue's tables in schema ${JSON.stringify(schema)}, which is not a plain identifier (letters, digits and _, not starting with a digit, at most 63); migrate into such a schema and name it in the queue's \`schema\` option`,
    );
  }
  return schema;
}

/** The first schema a search_path setting names, other than `$user`. */
function firstNamedSchema(searchPath: string): string | undefined {
  return searchPath
    .split(',')
    .map((part) => part.trim().replace(/^"(.*)"$/, '$1'))
    .find((name) => name !== '' && name !== '$user');
}

/** A context found once on first use; undefined while no lookup is under way or done. */
export interface LazyContext<C> {
  /**
   * The context, looking the schema up first when that has not succeeded yet: on the queue's own
   * connection, or on `via` (the caller's `db`, on the same database). `bind` must give the same
   * context for the same schema: both lookups may call it.
   */
  get(via?: Queryable): Promise<C>;
  /** The lookup under way or done, if any, without starting one. */
  started(): Promise<C> | undefined;
}

/**
 * The context for the schema the connection's search_path leads to, looked up once, before the
 * first operation; a failed lookup (such as tables not migrated yet) is retried by the next.
 * The backend's operations wait for it (deferOperations in ../operations.ts), so every Backend
 * method is deferred without being listed here.
 */
export function contextOnSearchPath<C>(pool: Queryable, bind: (schema: string) => C): LazyContext<C> {
  let binding: Promise<C> | undefined;
  let found: C | undefined;
  return {
    get(via) {
      if (found !== undefined) return Promise.resolve(found);
      // A lookup on the caller's connection runs on its own: one under way on the queue's
      // connection may be waiting for that very connection (PGlite's one session).
      if (via) return schemaOnSearchPath(via).then(bind);
      binding ??= schemaOnSearchPath(pool).then(
        (schema) => (found = bind(schema)),
        (err: unknown) => {
          binding = undefined;
          throw err;
        },
      );
      return binding;
    },
    started: () => binding,
  };
}
