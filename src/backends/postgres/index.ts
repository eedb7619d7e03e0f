/**
 * The PostgreSQL backend, composed by area as the Redis backend is: jobs.ts (add, read),
 * manage.ts (retry, cancel, edit, cleanup, reclaim), processing.ts (claim, complete, fail,
 * fenced writes), cron.ts, waits.ts and listener.ts (wake-ups) each export their operations,
 * bound here to one context (context.ts) for the queue's schema. Every operation is one
 * statement or one short transaction; SQL lives in queries/ by spec area, row mapping in rows.ts.
 * The database is a server or an embedded PGlite, behind one Driver (driver.ts).
 */
import type { Backend } from '../../backend.js';
import type { ResolvedPostgresConfig } from '../../config.js';
import { withStoreErrors } from '../../store-errors.js';
import { StoreFact } from '../../store-facts.js';
import { bindOperations, deferOperations } from '../operations.js';
import { postgresContext, type PostgresContext } from './context.js';
import { cronOperations } from './cron.js';
import { openDriver, type Driver } from './driver.js';
import { jobOperations } from './jobs.js';
import { wakeOperations } from './listener.js';
import { manageOperations } from './manage.js';
import { migrate } from './migrate.js';
import { processingOperations } from './processing.js';
import { contextOnSearchPath, type LazyContext } from './search-path.js';
import { postgresErrorTranslator } from './store-errors.js';
import { waitOperations } from './waits.js';

const OPERATIONS = {
  ...jobOperations,
  ...manageOperations,
  ...processingOperations,
  ...cronOperations,
  ...waitOperations,
  ...wakeOperations,
};

/** The schema `migrate: true` applies the migrations to when the queue names none, as migrate() does. */
const DEFAULT_MIGRATE_SCHEMA = 'public';

/**
 * The context of a queue that must first migrate its schema (`migrate: true`): built once the
 * migrations ran, before the first operation; a failed run is retried by the next operation.
 */
function contextAfterMigrating(
  driver: Driver,
  schema: string,
  bind: (schema: string) => PostgresContext,
): LazyContext<PostgresContext> {
  let binding: Promise<PostgresContext> | undefined;
  return {
    get() {
      binding ??= migrate({ ...driver.migrateTarget, schema }).then(
        () => bind(schema),
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
 * looked up (search-path.ts), exactly as on an explicit `schema`.
 */
export function createPostgresBackend(config: ResolvedPostgresConfig): Backend {
  const driver = openDriver(config);
  let schema: string | null = config.schema ?? null;
  const build = (found: string): PostgresContext => {
    schema = found;
    return postgresContext(config, driver, found);
  };
  let started: () => Promise<PostgresContext> | undefined;
  let operations;
  if (config.migrate || config.schema === undefined) {
    const lazy = config.migrate
      ? contextAfterMigrating(driver, config.schema ?? DEFAULT_MIGRATE_SCHEMA, build)
      : contextOnSearchPath(driver.db, build);
    started = () => lazy.started();
    operations = deferOperations(() => lazy.get(), OPERATIONS);
  } else {
    const context = build(config.schema);
    const ready = Promise.resolve(context);
    started = () => ready;
    operations = bindOperations(context, OPERATIONS);
  }
  let closing: Promise<void> | undefined;
  const backend: Backend = {
    ...operations,
    getPool: () => driver.getPool(),
    getRedisClient() {
      throw new StoreFact({ kind: 'unsupported-on-backend', operation: 'getRedisClient' });
    },
    close() {
      closing ??= (async () => {
        const context = await started()?.catch(() => undefined);
        if (context) await context.listener.close();
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
