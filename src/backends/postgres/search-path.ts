/**
 * A queue configured without `schema` follows the connection's `search_path`, as any unqualified
 * table name would (SPEC §4.12: `migrate --schema x`, then a connection that sets
 * `search_path=x`). The schema is looked up once, before the first operation, and the backend is
 * then built for it exactly as for an explicit `schema`: every statement stays schema-qualified,
 * and the NOTIFY channel and advisory lock keys name the schema, so two queues reaching different
 * schemas through their search paths never wake or block each other, and prepared statements of
 * one schema are never reused for another on a shared pool.
 */
import type { Backend } from '../../backend.js';
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

/** Every Backend member that returns a promise, so it can wait for the schema first. */
type AsyncMember = {
  [K in keyof Backend]-?: Backend[K] extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof Backend];

const DEFERRED = [
  'addJobs', 'getJob', 'getJobs', 'getJobEvents', 'retryJob', 'cancelJobs', 'editJobs', 'cleanupOldJobs',
  'cleanupOldJobEvents', 'reclaimStuckJobs', 'claimJobs', 'completeJobs', 'failJob', 'prolongJob', 'setProgress',
  'setOutput', 'subscribeJobAvailable', 'addCronSchedule', 'getCronSchedules', 'editCronSchedule',
  'removeCronSchedule', 'getDueCronSchedules', 'enqueueCronSlots', 'saveStep', 'enterWait', 'createToken',
  'completeToken', 'getToken', 'expireTimedOutTokens', 'heldJobIds',
] as const satisfies readonly AsyncMember[];

// A Backend method added later must be listed in DEFERRED (or handled below); this fails to
// compile until it is.
type Unlisted = Exclude<AsyncMember, (typeof DEFERRED)[number] | 'close'>;
const everyMethodListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyMethodListed;

export interface DeferredBackendParts {
  /** The pool the schema is looked up on, handed to the backend once it is known. */
  pool: Queryable;
  /** Builds the backend for the schema found. */
  bind(schema: string): Backend;
  /** The members that need no schema. */
  getPool: Backend['getPool'];
  getRedisClient: Backend['getRedisClient'];
  /** Releases what was opened when no backend was ever built (the library's own pool). */
  closeUnbound(): Promise<void>;
}

/**
 * A Backend whose every operation first waits for the schema lookup (once; a failed lookup, such
 * as tables not migrated yet, is retried by the next operation) and then runs on the backend
 * built for that schema.
 */
export function backendOnSearchPath(parts: DeferredBackendParts): Backend {
  let binding: Promise<Backend> | undefined;
  let closing: Promise<void> | undefined;
  const bound = (): Promise<Backend> => {
    binding ??= schemaOnSearchPath(parts.pool).then(parts.bind, (err: unknown) => {
      binding = undefined;
      throw err;
    });
    return binding;
  };
  const deferred = Object.fromEntries(
    DEFERRED.map((name) => [
      name,
      async (...args: unknown[]) => {
        const backend = (await bound()) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
        return backend[name]!(...args);
      },
    ]),
  );
  return {
    ...deferred,
    getPool: parts.getPool,
    getRedisClient: parts.getRedisClient,
    close: () => {
      closing ??= (async () => {
        const backend = await binding?.catch(() => undefined);
        if (backend) await backend.close();
        else await parts.closeUnbound();
      })();
      return closing;
    },
  } as Backend;
}
