/**
 * Runs a conformance suite once per target, on real stores, and holds the store set-up every
 * test file builds on (the PostgreSQL-only and Redis-only helpers included). A target is a
 * store a backend runs on: the postgres backend on a PostgreSQL server (`postgres`) or on an
 * embedded PGlite (`pglite`), the redis backend on a Redis server (`redis`) or on a local
 * 3-master Redis Cluster through an ioredis `Cluster` client (`redis-cluster`, redis-cluster.ts).
 *
 * Isolation: on PostgreSQL each test file migrates its own schema and truncates it before each
 * test; the schema is dropped after the file (kept when a test failed, for inspection). On
 * PGlite each test file has its own in-memory instance, migrated the same way and truncated
 * before each test. On Redis each test gets a fresh key prefix, deleted after the test.
 *
 * QUEUEDEV_TEST_BACKENDS=postgres,pglite,redis,redis-cluster picks the targets (default: all of them).
 */
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { Cluster, Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, it, onTestFailed, type TestAPI } from 'vitest';
import { pgliteQueryable } from '../../src/backends/postgres/pglite.js';
import { ManualClock } from '../../src/clock.js';
import { migrate } from '../../src/index.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { Clock, JobQueueConfig, PGliteInstance } from '../../src/types.js';
import { formatNodes, redisClusterNodes } from './redis-cluster.js';

/** The backend kind: which of the two backends a queue runs on. */
export type BackendName = 'postgres' | 'redis';
/** The store a conformance run uses; `pglite` is the postgres backend on an embedded database. */
export type TargetName = 'postgres' | 'pglite' | 'redis' | 'redis-cluster';

const KIND: Record<TargetName, BackendName> = {
  postgres: 'postgres',
  pglite: 'postgres',
  redis: 'redis',
  'redis-cluster': 'redis',
};
/** The targets this harness builds, in the order they run. */
const BUILT_TARGETS: TargetName[] = ['postgres', 'pglite', 'redis', 'redis-cluster'];

export const PG_URL = process.env.PG_QUEUE_DATABASE ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The targets QUEUEDEV_TEST_BACKENDS names (a comma list), else every target. */
export function selectedTargets(): TargetName[] {
  const raw = process.env.QUEUEDEV_TEST_BACKENDS;
  if (raw === undefined || raw.trim() === '') return [...BUILT_TARGETS];
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!BUILT_TARGETS.includes(name as TargetName))
      throw new Error(
        `QUEUEDEV_TEST_BACKENDS names ${JSON.stringify(name)}; the targets are ${BUILT_TARGETS.join(', ')}`,
      );
  }
  return names as TargetName[];
}

/** The backend kinds of the selected targets, each once. */
export function selectedBackends(): BackendName[] {
  return [...new Set(selectedTargets().map((t) => KIND[t]))];
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${randomBytes(5).toString('hex')}`;
}

/** Raw SQL on the test's database: a pg.Pool on a server, the PGlite instance (as pg returns rows) on PGlite. */
export interface SqlClient {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows as pg types them
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
}

export interface BackendContext {
  /** The backend kind: `postgres` on both PostgreSQL targets. */
  readonly backend: BackendName;
  readonly target: TargetName;
  /** The queue of the current test (system clock). */
  readonly queue: JobQueue;
  /**
   * Another queue on the same store and namespace (same schema / key prefix) as `queue`,
   * e.g. with a manual clock. Closed after the test.
   */
  makeQueue(options?: { clock?: Clock; maxPayloadBytes?: number }): JobQueue;
  /** Config of the current test's store (for child processes and raw access). */
  readonly config: JobQueueConfig;
  /** Raw SQL on the test's database (postgres kind only; throws on redis). Tables live in `schema`. */
  readonly sql: SqlClient;
  /** The pg.Pool the queue uses (postgres target only; throws elsewhere). */
  readonly pool: pg.Pool;
  /** The PGlite instance the queue uses (pglite target only; throws elsewhere). */
  readonly pglite: PGliteInstance;
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

/** Targets where a whole block cannot run, each with the reason the skipped block reports. */
export type SkipReasons = Partial<Record<TargetName, string>>;

/**
 * `forEachBackend('addJob (§4.1)', (ctx) => { it(...) })` registers the block once per target.
 * `forEachBackend({ title, skip: { pglite: 'why' } }, ...)` skips the whole block on the targets
 * `skip` names, its one placeholder test saying why (for single tests, itUnless).
 */
export function forEachBackend(
  block: string | { title: string; skip: SkipReasons },
  define: (ctx: BackendContext) => void,
): void {
  const { title, skip } = typeof block === 'string' ? { title: block, skip: {} as SkipReasons } : block;
  for (const target of selectedTargets()) {
    const reason = skip[target];
    if (reason !== undefined) {
      describe.skip(`${title} [${target}]`, () => {
        it(`skipped on ${target}: ${reason}`, () => undefined);
      });
      continue;
    }
    describe(`${title} [${target}]`, () => {
      define(contextFor(target));
    });
  }
}

function contextFor(target: TargetName): BackendContext {
  switch (target) {
    case 'postgres':
      return postgresContext();
    case 'pglite':
      return pgliteContext();
    case 'redis':
    case 'redis-cluster':
      return redisContext(target);
  }
}

/**
 * vitest's `it`, or `it.skip` with the reason in the title when the current target is one of
 * `reasons`' keys: every skip says why, e.g.
 * `itUnless(ctx, { pglite: 'needs a second process on the same database' })('...', ...)`.
 */
export function itUnless(ctx: BackendContext, reasons: Partial<Record<TargetName, string>>): TestAPI {
  const reason = reasons[ctx.target];
  if (reason === undefined) return it;
  const skip = it.skip as unknown as (...args: unknown[]) => unknown;
  // Called directly, the title says why; `.each` and the other members are it.skip's.
  return new Proxy(it, {
    apply: (_it, _this, [name, ...rest]: unknown[]) =>
      skip(`${String(name)} (skipped on ${ctx.target}: ${reason})`, ...rest),
    get: (_it, prop) => Reflect.get(it.skip, prop) as unknown,
  });
}

/** The queue's tables, emptied between tests. */
const TABLES = ['job_queue', 'job_events', 'cron_schedules', 'waitpoint_tokens', 'job_throughput'];
/**
 * The ids start again at 1 after the truncate, so the cleanup's floors start again too: of job
 * ids for the `added` events kept in rows (migration 014), of finish times and ids for the
 * `processing` and `completed` events (migration 018).
 */
const RESET_EVENTS_FLOORS = (schema: string) => [
  `UPDATE "${schema}".job_queue_added_events_floor SET below_job_id = 0, added_before = '-infinity'`,
  `UPDATE "${schema}".job_queue_run_events_floor SET below_finished_at = '-infinity', below_job_id = 0`,
];

export interface PostgresSchemas {
  /** The file's schemas, migrated with the package's migrate(), as users migrate. */
  readonly schemas: string[];
  /** A raw pool on the test database (tables are `"schema".job_queue`, ...). */
  readonly sql: pg.Pool;
}

/** The URL of `database` on the test server (PG_URL with another database). */
export function databaseUrl(database: string): string {
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * PostgreSQL isolation, the one set-up every PostgreSQL test file builds on: `count` schemas
 * named `<prefix>_<random>`, migrated before the file, truncated before each test (unless
 * `truncate: false`), dropped after the file, kept when a test failed, for inspection.
 *
 * `ownDatabase`: the schemas live in a database of their own, `<prefix>_db_<random>`, created
 * before the file and dropped after it (kept, too, after a failure). A plan test that counts the
 * pages a statement reads after a VACUUM needs one: VACUUM keeps every row version an open
 * transaction of the same database may still see, and other files' tests hold transactions in
 * the shared test database at any moment.
 */
export function usePostgresSchemas(options: {
  prefix: string;
  count?: number;
  truncate?: boolean;
  poolSize?: number;
  ownDatabase?: boolean;
}): PostgresSchemas {
  const schemas = Array.from({ length: options.count ?? 1 }, () => uniqueName(options.prefix));
  const database = options.ownDatabase ? uniqueName(`${options.prefix}_db`) : undefined;
  const url = database === undefined ? PG_URL : databaseUrl(database);
  let sql: pg.Pool;
  let failed = false;

  /** A statement on the test database, for what cannot run in the database it is about. */
  async function onTestDatabase(statement: string): Promise<void> {
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    try {
      await admin.query(statement);
    } finally {
      await admin.end();
    }
  }

  beforeAll(async () => {
    if (database !== undefined) await onTestDatabase(`CREATE DATABASE "${database}"`);
    for (const schema of schemas) await migrate({ databaseUrl: url, schema });
    sql = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
  });
  beforeEach(async () => {
    onTestFailed(() => {
      failed = true;
    });
    if (options.truncate === false) return;
    for (const schema of schemas) {
      await sql.query(`TRUNCATE ${TABLES.map((t) => `"${schema}".${t}`).join(', ')} RESTART IDENTITY`);
      for (const reset of RESET_EVENTS_FLOORS(schema)) await sql.query(reset);
    }
  });
  afterAll(async () => {
    if (failed) {
      const kept = database ?? schemas.join(', ');
      const what = database !== undefined ? 'database' : schemas.length > 1 ? 'schemas' : 'schema';
      console.warn(`[test] kept ${what} ${kept} after a failure`);
    } else if (database === undefined) {
      for (const schema of schemas) await sql.query(`DROP SCHEMA "${schema}" CASCADE`);
    }
    await sql.end();
    if (!failed && database !== undefined) await onTestDatabase(`DROP DATABASE "${database}" WITH (FORCE)`);
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
    get clusterNodes() {
      return clusterNodes;
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
  return targetContext({
    backend: 'postgres',
    target: 'postgres',
    config: () => ({ backend: 'postgres', pool: store.sql, schema }),
    schema: () => schema,
    sql: () => store.sql,
    pool: () => store.sql,
  });
}

export interface PGliteSchema {
  /** The file's in-memory PGlite instance. */
  readonly pglite: PGliteInstance;
  /** Raw SQL on it, rows as pg returns them. */
  readonly sql: SqlClient;
  /** The file's schema, migrated with the package's migrate(). */
  readonly schema: string;
}

/**
 * PGlite isolation, as usePostgresSchemas on a server: one in-memory instance per test file
 * (starting one takes about a second), a schema migrated before the file with migrate(),
 * truncated before each test, and the instance closed after the file.
 */
export function usePGliteSchema(options: { prefix: string }): PGliteSchema {
  const schema = uniqueName(options.prefix);
  let instance: PGlite;
  let sql: SqlClient;

  beforeAll(async () => {
    instance = await PGlite.create();
    sql = pgliteQueryable(instance);
    await migrate({ pglite: instance, schema });
  });
  beforeEach(async () => {
    await sql.query(`TRUNCATE ${TABLES.map((t) => `"${schema}".${t}`).join(', ')} RESTART IDENTITY`);
    for (const reset of RESET_EVENTS_FLOORS(schema)) await sql.query(reset);
  });
  afterAll(async () => {
    await instance.close();
  });

  return {
    get pglite() {
      return instance;
    },
    get sql() {
      return sql;
    },
    schema,
  };
}

function pgliteContext(): BackendContext {
  const store = usePGliteSchema({ prefix: 'qtest' });
  return targetContext({
    backend: 'postgres',
    target: 'pglite',
    config: () => ({ backend: 'postgres', pglite: store.pglite, schema: store.schema }),
    schema: () => store.schema,
    sql: () => store.sql,
    pglite: () => store.pglite,
  });
}

function redisContext(target: 'redis' | 'redis-cluster'): BackendContext {
  const store = useRedisPrefixes({ prefix: 'qtest', cluster: target === 'redis-cluster' });
  return targetContext({
    backend: 'redis',
    target,
    config: () => ({ backend: 'redis', client: store.redis, keyPrefix: store.prefix }),
    redis: () => store.redis,
    keyPrefix: () => store.prefix,
    clusterNodes: () => store.clusterNodes,
  });
}

/** What a target gives its context: its queue config, and the raw access it has. */
interface TargetParts {
  backend: BackendName;
  target: TargetName;
  config: () => JobQueueConfig;
  schema?: () => string;
  sql?: () => SqlClient;
  pool?: () => pg.Pool;
  pglite?: () => PGliteInstance;
  redis?: () => Redis;
  keyPrefix?: () => string;
  clusterNodes?: () => string;
}

/**
 * The context every target shares: a queue per test on the target's config (closed after it,
 * with those of makeQueue), and the target's raw access; what a target lacks throws when read.
 */
function targetContext(parts: TargetParts): BackendContext {
  const track = useQueues();
  let queue: JobQueue | undefined;
  beforeEach(() => {
    queue = track(initJobQueue(parts.config()));
  });
  afterEach(() => {
    queue = undefined;
  });
  const only = <T>(get: (() => T) | undefined, what: string, where: string): T => {
    if (!get) throw new Error(`ctx.${what} is only available on the ${where}`);
    return get();
  };
  return {
    backend: parts.backend,
    target: parts.target,
    get queue() {
      if (!queue) throw new Error('ctx.queue is only available inside a test');
      return queue;
    },
    makeQueue(options) {
      return track(initJobQueue({ ...parts.config(), ...options }));
    },
    get config() {
      return parts.config();
    },
    get sql() {
      return only(parts.sql, 'sql', 'postgres backend');
    },
    get pool() {
      return only(parts.pool, 'pool', 'postgres target');
    },
    get pglite() {
      return only(parts.pglite, 'pglite', 'pglite target');
    },
    get redis() {
      return only(parts.redis, 'redis', 'redis backend');
    },
    get schema() {
      return parts.schema?.() ?? '';
    },
    get keyPrefix() {
      return parts.keyPrefix?.() ?? '';
    },
    get clusterNodes() {
      return parts.clusterNodes?.() ?? '';
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
