/**
 * Runs a conformance suite once per backend, on real PostgreSQL and Redis, and holds the store
 * set-up every test file builds on (the PostgreSQL-only and Redis-only helpers included).
 *
 * Isolation: on PostgreSQL each test file migrates its own schema and truncates it before each
 * test; the schema is dropped after the file (kept when a test failed, for inspection). On
 * Redis each test gets a fresh key prefix, deleted after the test.
 *
 * Targets: `postgres` and `redis` (the servers of PG_QUEUE_DATABASE and REDIS_URL), and
 * `redis-cluster`, the Redis backend on a local 3-master Redis Cluster through an ioredis
 * `Cluster` client (redis-cluster.ts). QUEUEDEV_TEST_BACKENDS=postgres,redis-cluster picks the
 * targets (default: all).
 */
import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, it, onTestFailed, type TestAPI } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { migrate } from '../../src/index.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { Clock, JobQueueConfig } from '../../src/types.js';
import { formatNodes, redisClusterNodes } from './redis-cluster.js';

/** The kind of store: what `ctx.backend` says, whichever target runs it. */
export type BackendName = 'postgres' | 'redis';
/** Where a conformance suite runs: a backend on one kind of server. */
export type TargetName = 'postgres' | 'pglite' | 'redis' | 'redis-cluster';

export const PG_URL = process.env.PG_QUEUE_DATABASE ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The targets this tree runs, in the order suites run on them. */
const TARGETS: readonly TargetName[] = ['postgres', 'redis', 'redis-cluster'];

/** The targets of QUEUEDEV_TEST_BACKENDS (a comma list; default every target). */
export function selectedTargets(): TargetName[] {
  const raw = process.env.QUEUEDEV_TEST_BACKENDS;
  if (raw === undefined || raw.trim() === '') return [...TARGETS];
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!TARGETS.includes(name as TargetName))
      throw new Error(
        `QUEUEDEV_TEST_BACKENDS: expected a comma list of ${TARGETS.join(', ')}, got ${JSON.stringify(name)}`,
      );
  }
  return names as TargetName[];
}

/**
 * `it`, or `it.skip` with the reason in the title on the targets named in `reasons`, so every
 * skip says why: `itUnless(ctx, { 'redis-cluster': 'CLIENT KILL needs one node' })('...', fn)`.
 */
export function itUnless(ctx: BackendContext, reasons: Partial<Record<TargetName, string>>): TestAPI {
  const reason = reasons[ctx.target];
  if (reason === undefined) return it;
  // Only the call is wrapped (to name the reason); `it.skip` is an `it` that runs nothing.
  const skip = new Proxy(it.skip, {
    apply: (target, self, args: unknown[]) =>
      Reflect.apply(target, self, [`${String(args[0])} (skipped on ${ctx.target}: ${reason})`, ...args.slice(1)]),
  });
  return skip as unknown as TestAPI;
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

export interface BackendContext {
  /** The kind of store; `target` tells which server runs it. */
  readonly backend: BackendName;
  readonly target: TargetName;
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
  /**
   * A raw Redis client and the current prefix (redis only; throws on postgres). On
   * redis-cluster it is an ioredis `Cluster`, the queue's client: key commands route by slot.
   */
  readonly redis: Redis;
  readonly keyPrefix: string;
  /** The cluster's nodes as `host:port,...` (redis-cluster only; '' elsewhere), for child processes. */
  readonly clusterNodes: string;
}

export { ManualClock };

/** `forEachBackend('addJob (§4.1)', (ctx) => { it(...) })` registers the block once per target. */
export function forEachBackend(title: string, define: (ctx: BackendContext) => void): void {
  for (const target of selectedTargets()) {
    describe(`${title} [${target}]`, () => {
      define(contextOf(target));
    });
  }
}

function contextOf(target: TargetName): BackendContext {
  switch (target) {
    case 'postgres':
      return postgresContext();
    case 'redis':
    case 'redis-cluster':
      return redisContext(target);
    case 'pglite':
      throw new Error('the pglite target is not available in this tree');
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
  /** The file's raw client (a `Cluster` with `cluster: true`, typed as `Redis`: the same key commands). */
  readonly redis: Redis;
  /** The cluster's nodes, `host:port,...` ('' without `cluster`). */
  readonly clusterNodes: string;
  /** The current test's key prefix, `<prefix>_<random>:`. */
  readonly prefix: string;
  /** Deletes the keys of another prefix too after the test. */
  alsoDelete(prefix: string): void;
}

/**
 * Redis isolation, the one set-up every Redis test file builds on: one client per file, a
 * fresh key prefix per test, and every key of the test's prefixes deleted after it.
 */
export function useRedisPrefixes(options: { prefix: string; cluster?: boolean }): RedisPrefixes {
  let redis: Redis;
  let clusterNodes = '';
  let prefix = '';
  let prefixes: string[] = [];

  beforeAll(async () => {
    if (options.cluster) {
      const nodes = await redisClusterNodes();
      clusterNodes = formatNodes(nodes);
      const cluster = new Cluster(nodes);
      await new Promise<void>((resolve, reject) => {
        cluster.once('ready', resolve);
        cluster.once('error', reject);
      });
      redis = cluster as unknown as Redis;
    } else {
      redis = new Redis(REDIS_URL);
    }
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
    get clusterNodes() {
      return clusterNodes;
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
    target: 'postgres',
    clusterNodes: '',
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

function redisContext(target: 'redis' | 'redis-cluster'): BackendContext {
  const store = useRedisPrefixes({ prefix: 'qtest', cluster: target === 'redis-cluster' });
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
    target,
    get clusterNodes() {
      return store.clusterNodes;
    },
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

/** Deletes the keys matching `pattern`; on a `Cluster`, on every master (SCAN sees one node's keys). */
export async function deleteKeys(client: Redis | Cluster, pattern: string): Promise<void> {
  if (client instanceof Cluster) {
    await Promise.all(client.nodes('master').map((node) => deleteKeys(node, pattern)));
    return;
  }
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    // One DEL per key: on a cluster node, the keys of one reply may lie in different slots.
    if (keys.length > 0) await keys.reduce((batch, key) => batch.del(key), client.pipeline()).exec();
  } while (cursor !== '0');
}
