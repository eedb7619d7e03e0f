/**
 * Runs a conformance suite once per backend, on real PostgreSQL and Redis.
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
import type { Clock, JobQueueConfig, PayloadMap } from '../../src/types.js';

export type BackendName = 'postgres' | 'redis';

export const PG_URL = process.env.PG_QUEUE_DATABASE ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export function selectedBackends(): BackendName[] {
  const raw = process.env.QUEUEDEV_TEST_BACKENDS ?? 'postgres,redis';
  return raw.split(',').map((s) => s.trim()).filter(Boolean) as BackendName[];
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

export interface BackendContext {
  readonly backend: BackendName;
  /** The queue of the current test (system clock). */
  readonly queue: JobQueue<PayloadMap>;
  /**
   * Another queue on the same store and namespace (same schema / key prefix) as `queue`,
   * e.g. with a manual clock. Closed after the test.
   */
  makeQueue(options?: { clock?: Clock }): JobQueue<PayloadMap>;
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

function postgresContext(): BackendContext {
  const schema = uniqueName('qtest');
  let pool: pg.Pool;
  let queue: JobQueue<PayloadMap> | undefined;
  let extra: JobQueue<PayloadMap>[] = [];
  let failed = false;
  const config = (): JobQueueConfig => ({ backend: 'postgres', pool, schema });

  beforeAll(async () => {
    await migrate({ databaseUrl: PG_URL, schema });
    pool = new pg.Pool({ connectionString: PG_URL, max: 20 });
  });
  beforeEach(async () => {
    onTestFailed(() => {
      failed = true;
    });
    const tables = ['job_queue', 'job_events', 'cron_schedules', 'waitpoint_tokens'].map((t) => `"${schema}".${t}`);
    await pool.query(`TRUNCATE ${tables.join(', ')} RESTART IDENTITY`);
    queue = initJobQueue(config());
  });
  afterEach(async () => {
    await Promise.all([queue, ...extra].map((q) => q?.close()));
    extra = [];
    queue = undefined;
  });
  afterAll(async () => {
    if (!failed) await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    else console.warn(`[test] kept schema ${schema} after a failure`);
    await pool.end();
  });

  return {
    backend: 'postgres',
    get queue() {
      if (!queue) throw new Error('ctx.queue is only available inside a test');
      return queue;
    },
    makeQueue(options) {
      const q = initJobQueue({ ...config(), clock: options?.clock });
      extra.push(q);
      return q;
    },
    get config() {
      return config();
    },
    get sql() {
      return pool;
    },
    get redis(): Redis {
      throw new Error('ctx.redis is only available on the redis backend');
    },
    schema,
    keyPrefix: '',
  };
}

function redisContext(): BackendContext {
  let client: Redis;
  let prefix = '';
  let queue: JobQueue<PayloadMap> | undefined;
  let extra: JobQueue<PayloadMap>[] = [];
  const config = (): JobQueueConfig => ({ backend: 'redis', client, keyPrefix: prefix });

  beforeAll(() => {
    client = new Redis(REDIS_URL, { lazyConnect: false });
  });
  beforeEach(() => {
    prefix = `${uniqueName('qtest')}:`;
    queue = initJobQueue(config());
  });
  afterEach(async () => {
    await Promise.all([queue, ...extra].map((q) => q?.close()));
    extra = [];
    queue = undefined;
    await deleteKeys(client, `${prefix}*`);
  });
  afterAll(async () => {
    await client.quit();
  });

  return {
    backend: 'redis',
    get queue() {
      if (!queue) throw new Error('ctx.queue is only available inside a test');
      return queue;
    },
    makeQueue(options) {
      const q = initJobQueue({ ...config(), clock: options?.clock });
      extra.push(q);
      return q;
    },
    get config() {
      return config();
    },
    get sql(): pg.Pool {
      throw new Error('ctx.sql is only available on the postgres backend');
    },
    get redis() {
      return client;
    },
    schema: '',
    get keyPrefix() {
      return prefix;
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
