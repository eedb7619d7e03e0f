/**
 * The PostgreSQL backend, composed by area as the Redis backend is: jobs.ts (add, read),
 * manage.ts (retry, cancel, edit, cleanup, reclaim), processing.ts (claim, complete, fail,
 * fenced writes), cron.ts, waits.ts and listener.ts (wake-ups) each export their operations,
 * bound here to one context (context.ts) for the queue's schema. Every operation is one
 * statement or one short transaction; SQL lives in queries/ by spec area, row mapping in rows.ts.
 * The database is a server or an embedded PGlite, behind one Driver (driver.ts).
 */
import type { AddJobsInput, Backend } from '../../backend.js';
import type { ResolvedPostgresConfig } from '../../config.js';
import { withStoreErrors } from '../../store-errors.js';
import { StoreFact } from '../../store-facts.js';
import { bindOperations, deferOperations, type Bound } from '../operations.js';
import { postgresContext, type PostgresContext } from './context.js';
import { cronOperations } from './cron.js';
import { openDriver, type Driver } from './driver.js';
import { findOperations } from './find.js';
import { jobOperations } from './jobs.js';
import { wakeOperations } from './listener.js';
import { manageOperations } from './manage.js';
import { migrate } from './migrate.js';
import { overviewOperations } from './overview.js';
import { processingOperations } from './processing.js';
import { contextOnSearchPath, type LazyContext } from './search-path.js';
import { postgresErrorTranslator } from './store-errors.js';
import { waitOperations } from './waits.js';

const OPERATIONS = {
  ...jobOperations,
  ...findOperations,
  ...manageOperations,
  ...processingOperations,
  ...cronOperations,
  ...waitOperations,
  ...wakeOperations,
  ...overviewOperations,
};

/** The schema `migrate: true` applies the migrations to when the queue names none, as migrate() does. */
const DEFAULT_MIGRATE_SCHEMA = 'public';

/**
 * The start-up of a queue that must first migrate its schema (`migrate: true`): the migrations
 * run once, before the first operation; a failed run is retried by the next operation.
 */
function afterMigrating(driver: Driver, schema: string, context: PostgresContext): LazyContext<PostgresContext> {
  let binding: Promise<PostgresContext> | undefined;
  return {
    get() {
      binding ??= migrate({ ...driver.migrateTarget, schema }).then(
        () => context,
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

/**
 * Creates the PostgreSQL backend. A pool built from `databaseConfig`, or a PGlite built from
 * `pglite` options, is the library's; `pool` and a PGlite instance are the caller's. Without
 * `schema`, the backend works on the schema the connection's search_path leads to, once that is
 * looked up (search-path.ts), exactly as on an explicit `schema`. With `migrate: true`, every
 * operation first waits for the migrations of its schema.
 */
export function createPostgresBackend(config: ResolvedPostgresConfig): Backend {
  const driver = openDriver(config);
  // Connection passwords never reach the log, whatever a driver error says.
  config.log.addSecrets(driver.secrets);
  const migrateSchema = config.migrate ? (config.schema ?? DEFAULT_MIGRATE_SCHEMA) : undefined;
  const knownSchema = config.schema ?? migrateSchema;
  let schema: string | null = null;
  let built: PostgresContext | undefined;
  // One context per queue: a schema is looked up once, or twice at most on one session (search-path.ts).
  const build = (found: string): PostgresContext => {
    if (built && schema === found) return built;
    schema = found;
    return (built = postgresContext(config, driver, found));
  };
  let startUp: LazyContext<PostgresContext> | undefined;
  let operations: Bound<typeof OPERATIONS>;
  if (knownSchema === undefined) {
    const lookup = contextOnSearchPath(driver.db, build);
    startUp = lookup;
    const deferred = deferOperations(() => lookup.get(), OPERATIONS);
    // On one session, an add on the caller's transaction looks the schema up on that transaction.
    operations = driver.singleSession
      ? {
          ...deferred,
          addJobs: async (input: AddJobsInput) => jobOperations.addJobs(await lookup.get(input.db ?? undefined), input),
        }
      : deferred;
  } else {
    const context = build(knownSchema);
    const bound = bindOperations(context, OPERATIONS);
    if (migrateSchema === undefined) {
      operations = bound;
    } else {
      const migrating = afterMigrating(driver, migrateSchema, context);
      startUp = migrating;
      const deferred = deferOperations(() => migrating.get(), OPERATIONS);
      // On one session (PGlite), the caller's `db` transaction holds the database: an add on it
      // that waited for the migrations, which need the database too, would wait forever. It runs
      // on the caller's transaction at once instead (an unmigrated schema fails it with
      // NotMigratedError); on a server it waits like every other operation.
      operations = driver.singleSession
        ? { ...deferred, addJobs: (input: AddJobsInput) => (input.db ? bound.addJobs(input) : deferred.addJobs(input)) }
        : deferred;
    }
  }
  // One session: start at once, so the start-up is over before the caller opens a transaction.
  if (startUp && driver.singleSession) startUp.get().catch(() => undefined);
  let closing: Promise<void> | undefined;
  const backend: Backend = {
    ...operations,
    getPool: () => driver.getPool(),
    getRedisClient() {
      throw new StoreFact({ kind: 'unsupported-on-backend', operation: 'getRedisClient' });
    },
    close() {
      closing ??= (async () => {
        // A start-up under way ends first: the connection it uses is about to close.
        await startUp?.started()?.catch(() => undefined);
        if (built) await built.listener.close();
        await driver.close();
      })();
      return closing;
    },
  };
  // The one place driver errors are translated: every method's failure (store-errors.ts). The
  // schema, once known, lets a missing table be reported as NotMigratedError.
  return withStoreErrors(
    backend,
    postgresErrorTranslator(() => schema, driver.secrets),
  );
}
