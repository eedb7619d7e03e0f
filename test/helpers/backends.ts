/**
 * Runs a conformance suite once per backend, on real PostgreSQL and Redis, and holds the store
 * set-up every test file builds on (the PostgreSQL-only and Redis-only helpers included).
 *
 * Isolation: on PostgreSQL each test file migrates its own schema and truncates it before each
 * test; the schema is dropped after the file (kept when a test failed, for inspection). On
 * Redis each test gets a fresh key prefix, deleted after the test.
 *
 * QUEUEDEV_TEST_BACKENDS=postgres,redis picks the backends (default: both).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, onTestFailed } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { migrate } from '../../src/index.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { Clock, JobQueueConfig } from '../../src/types.js';

export type BackendName = 'postgres' | 'redis';

export const PG_URL = process.env.PG_QUEUE_DATABASE ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export function selectedBackends(): BackendName[] {
  const raw = process.env.QUEUEDEV_TEST_BACKENDS ?? 'postgres,redis';
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean) as BackendName[];
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

export interface BackendContext {
  readonly backend: BackendName;
  /** The queue of the current test (system clock). */
  readonly queue: JobQueue;
  /**
   * Another queue on the same store and namespace (same schema / key prefix) as `queue`,
   * e.g. with a manual clock. Closed after the test.
   */
  makeQueue(options?: { clock?: Clock }): JobQueue;
  /** Config of the current test's store (for child processes and raw access). */
  readonly config: JobQueueConfig;
  /** A raw SQL pool (postgres only; throws on redis). Tables live in `schema`. */
  readonly sql: pg.Pool;
  /** The test file's schema (postgres only; '' on redis). */
  readonly schema: string;
  /** A raw Redis client and the current prefix (redis only; throws on postgres). */
  readonly redis: Redis;
  readonly keyPrefix: string;
}

export { ManualClock };

/** `forEachBackend('addJob (§4.1)', (ctx) => { it(...) })` registers the block once per backend. */
export function forEachBackend(title: string, define: (ctx: BackendContext) => void): void {
  for (const backend of selectedBackends()) {
    describe(`${title} [${backend}]`, () => {
      define(backend === 'postgres' ? postgresContext() : redisContext());
    });
  }
}

/** The queue's tables, emptied between tests. */
const TABLES = ['job_queue', 'job_events', 'cron_schedules', 'waitpoint_tokens'];

export interface PostgresSchemas {
  /** The file's schemas, migrated with the package's migrate(), as users migrate. */
  readonly schemas: string[];
  /** A raw pool on the test database (tables are `"schema".job_queue`, ...). */
  readonly sql: pg.Pool;
}

/**
 * PostgreSQL isolation, the one set-up every PostgreSQL test file builds on: `count` schemas
 * named `<prefix>_<random>`, migrated before the file, truncated before each test (unless
 * `truncate: false`), dropped after the file, kept when a test failed, for inspection.
 */
export function usePostgresSchemas(options: {
  prefix: string;
  count?: number;
  truncate?: boolean;
  poolSize?: number;
}): PostgresSchemas {
  const schemas = Array.from({ length: options.count ?? 1 }, () => uniqueName(options.prefix));
  let sql: pg.Pool;
  let failed = false;

  beforeAll(async () => {
    for (const schema of schemas) await migrate({ databaseUrl: PG_URL, schema });
    sql = new pg.Pool({ connectionString: PG_URL, max: options.poolSize ?? 10 });
  });
  beforeEach(async () => {
    onTestFailed(() => {
      failed = true;
    });
    if (options.truncate === false) return;
    for (const schema of schemas)
      await sql.query(`TRUNCATE ${TABLES.map((t) => `"${schema}".${t}`).join(', ')} RESTART IDENTITY`);
  });
  afterAll(async () => {
    if (failed)
      console.warn(`[test] kept schema${schemas.length > 1 ? 's' : ''} ${schemas.join(', ')} after a failure`);
    else for (const schema of schemas) await sql.query(`DROP SCHEMA "${schema}" CASCADE`);
    await sql.end();
  });

  return {
    schemas,
    get sql() {
      return sql;
    },
  };
}

export interface RedisPrefixes {
  /** The file's raw client. */
  readonly redis: Redis;
  /** The current test's key prefix, `<prefix>_<random>:`. */
  readonly prefix: string;
  /** Deletes the keys of another prefix too after the test. */
  alsoDelete(prefix: string): void;
}

/**
 * Redis isolation, the one set-up every Redis test file builds on: one client per file, a
 * fresh key prefix per test, and every key of the test's prefixes deleted after it.
 */
export function useRedisPrefixes(options: { prefix: string }): RedisPrefixes {
  let redis: Redis;
  let prefix = '';
  let prefixes: string[] = [];

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  beforeEach(() => {
    prefix = `${uniqueName(options.prefix)}:`;
    prefixes = [prefix];
  });
  afterEach(async () => {
    for (const p of prefixes) await deleteKeys(redis, `${p}*`);
  });
  afterAll(async () => {
    await redis.quit();
  });

  return {
    get redis() {
      return redis;
    },
    get prefix() {
      return prefix;
    },
    alsoDelete(p) {
      if (!prefixes.includes(p)) prefixes.push(p);
    },
  };
}

/**
 * Queues a test opens, closed after it. Call after usePostgresSchemas / useRedisPrefixes: hooks
 * registered later run their `afterEach` first, so the queues close before their store is cleaned.
 */
export function useQueues(): <Q extends JobQueue>(queue: Q) => Q {
  let queues: JobQueue[] = [];
  afterEach(async () => {
    await Promise.all(queues.map((q) => q.close()));
    queues = [];
  });
  return (queue) => {
    queues.push(queue);
    return queue;
  };
}

function postgresContext(): BackendContext {
  const store = usePostgresSchemas({ prefix: 'qtest', poolSize: 20 });
  const schema = store.schemas[0]!;
  const track = useQueues();
  let queue: JobQueue | undefined;
  const config = (): JobQueueConfig => ({ backend: 'postgres', pool: store.sql, schema });

  beforeEach(() => {
    queue = track(initJobQueue(config()));
  });
  afterEach(() => {
    queue = undefined;
  });

  return {
    backend: 'postgres',
    get queue() {
      if (!queue) throw new Error('ctx.queue is only available inside a test');
      return queue;
    },
    makeQueue(options) {
      return track(initJobQueue({ ...config(), clock: options?.clock }));
    },
    get config() {
      return config();
    },
    get sql() {
      return store.sql;
    },
    get redis(): Redis {
      throw new Error('ctx.redis is only available on the redis backend');
    },
    schema,
    keyPrefix: '',
  };
}

function redisContext(): BackendContext {
  const store = useRedisPrefixes({ prefix: 'qtest' });
  const track = useQueues();
  let queue: JobQueue | undefined;
  const config = (): JobQueueConfig => ({ backend: 'redis', client: store.redis, keyPrefix: store.prefix });

  beforeEach(() => {
    queue = track(initJobQueue(config()));
  });
  afterEach(() => {
    queue = undefined;
  });

  return {
    backend: 'redis',
    get queue() {
      if (!queue) throw new Error('ctx.queue is only available inside a test');
      return queue;
    },
    makeQueue(options) {
      return track(initJobQueue({ ...config(), clock: options?.clock }));
    },
    get config() {
      return config();
    },
    get sql(): pg.Pool {
      throw new Error('ctx.sql is only available on the postgres backend');
    },
    get redis() {
      return store.redis;
    },
    schema: '',
    get keyPrefix() {
      return store.prefix;
    },
  };
}

export async function deleteKeys(client: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await client.del(...keys);
  } while (cursor !== '0');
}
