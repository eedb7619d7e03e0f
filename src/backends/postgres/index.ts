/**
 * The PostgreSQL backend, composed by area as the Redis backend is: jobs.ts (add, read),
 * manage.ts (retry, cancel, edit, cleanup, reclaim), processing.ts (claim, complete, fail,
 * fenced writes), cron.ts, waits.ts and listener.ts (wake-ups) each export their operations,
 * bound here to one context (context.ts) for the queue's schema. Every operation is one
 * statement or one short transaction; SQL lives in queries/ by spec area, row mapping in rows.ts.
 */
import type { Backend } from '../../backend.js';
import type { ResolvedPostgresConfig } from '../../config.js';
import { withStoreErrors } from '../../store-errors.js';
import { StoreFact } from '../../store-facts.js';
import { bindOperations, deferOperations } from '../operations.js';
import { postgresContext, type PostgresContext } from './context.js';
import { cronOperations } from './cron.js';
import { jobOperations } from './jobs.js';
import { wakeOperations } from './listener.js';
import { manageOperations } from './manage.js';
import { openDriver } from './pool.js';
import { processingOperations } from './processing.js';
import { contextOnSearchPath } from './search-path.js';
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

/**
 * Creates the PostgreSQL backend. A pool built from `databaseConfig` is the library's; `pool` is
 * the caller's. Without `schema`, the backend works on the schema the connection's search_path
 * leads to, once that is looked up (search-path.ts), exactly as on an explicit `schema`.
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
  if (config.schema !== undefined) {
    const context = build(config.schema);
    const ready = Promise.resolve(context);
    started = () => ready;
    operations = bindOperations(context, OPERATIONS);
  } else {
    const lazy = contextOnSearchPath(driver.pool, build);
    started = () => lazy.started();
    operations = deferOperations(() => lazy.get(), OPERATIONS);
  }
  let closing: Promise<void> | undefined;
  const backend: Backend = {
    ...operations,
    getPool: () => driver.pool,
    getRedisClient() {
      throw new StoreFact({ kind: 'unsupported-on-backend', operation: 'getRedisClient' });
    },
    close() {
      closing ??= (async () => {
        const context = await started()?.catch(() => undefined);
        if (context) await context.listener.close();
        if (driver.ownsPool) await driver.pool.end();
      })();
      return closing;
    },
  };
  // The one place driver errors are translated: every method's failure (store-errors.ts). The
  // schema, once known, lets a missing table be reported as NotMigratedError.
  return withStoreErrors(
    backend,
    postgresErrorTranslator(() => schema, driver.pool),
  );
}
