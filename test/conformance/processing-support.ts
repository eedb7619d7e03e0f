/** Helpers shared by the processing conformance files (processor, retries, timeouts, ...). */
import { Cluster, Redis } from 'ioredis';
import { afterEach, expect } from 'vitest';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { Processor } from '../../src/processor.js';
import type { Supervisor } from '../../src/supervisor.js';
import type { Clock } from '../../src/types.js';
import { PG_URL, REDIS_URL, type BackendContext } from '../helpers/backends.js';
import { parseNodes } from '../helpers/redis-cluster.js';

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Registers processors and supervisors for shutdown after each test, and fails a test that
 * left one running: a leaked loop would process the next test's jobs.
 */
export function trackRunners(): <T extends Processor | Supervisor>(runner: T) => T {
  let runners: (Processor | Supervisor)[] = [];
  afterEach(async () => {
    const leaked = runners.filter((r) => r.isRunning()).length;
    await Promise.all(runners.map((r) => r.stopAndDrain(5000)));
    runners = [];
    expect(leaked, 'processors or supervisors left running by the test').toBe(0);
  });
  return (runner) => {
    runners.push(runner);
    return runner;
  };
}

/**
 * A queue on the current test's store that owns its connection (closing it really closes it),
 * for tests that break or cut connections; on PGlite, a queue on the test's instance. On
 * redis-cluster, where the library never creates the client (a Cluster is always passed as
 * `client`), the queue gets a Cluster client of its own, closed with it. The caller closes it.
 */
export function ownedQueue(ctx: BackendContext, options: { clock?: Clock; applicationName?: string } = {}): JobQueue {
  if (ctx.target === 'pglite') {
    // One PGlite instance is the whole database, so a queue that owned another would not share
    // the test's jobs: this one shares the test's instance (its close() leaves it open).
    return initJobQueue({ ...ctx.config, clock: options.clock });
  }
  if (ctx.backend === 'postgres') {
    const url = new URL(PG_URL);
    if (options.applicationName) url.searchParams.set('application_name', options.applicationName);
    return initJobQueue({
      databaseConfig: { connectionString: url.toString() },
      schema: ctx.schema,
      clock: options.clock,
    });
  }
  if (ctx.target === 'redis-cluster') {
    const client = new Cluster(parseNodes(ctx.clusterNodes, 'ctx.clusterNodes'), {
      redisOptions: { connectionName: options.applicationName },
    });
    return closingClient(
      initJobQueue({ backend: 'redis', client, keyPrefix: ctx.keyPrefix, clock: options.clock }),
      client,
    );
  }
  return initJobQueue({
    backend: 'redis',
    redisConfig: { url: REDIS_URL, keyPrefix: ctx.keyPrefix },
    clock: options.clock,
  });
}

/** `queue`, whose close() also disconnects `client` (the test's, which the queue never closes). */
function closingClient(queue: JobQueue, client: Redis | Cluster): JobQueue {
  const close = queue.close.bind(queue);
  queue.close = async (options) => {
    await close(options);
    client.disconnect();
  };
  return queue;
}

/**
 * A queue on a store that is not there: every store call fails at once (PostgreSQL: a refused
 * connection; PGlite: a data directory it cannot open; Redis: a client with no offline queue, which fails
 * commands instead of retrying).
 * The caller closes it.
 */
export function unreachableQueue(ctx: BackendContext): JobQueue {
  const url = '127.0.0.1:1'; // port 1: nothing listens there
  if (ctx.target === 'pglite') {
    // Embedded, there is no server to miss: a data directory that cannot be created (its parent
    // is a file) fails every statement with the same error.
    return initJobQueue({ pglite: { dataDir: '/dev/null/queuedev' }, schema: ctx.schema });
  }
  if (ctx.backend === 'postgres') {
    return initJobQueue({
      databaseConfig: { connectionString: `postgres://postgres@${url}/none` },
      schema: ctx.schema,
    });
  }
  const client =
    ctx.target === 'redis-cluster'
      ? new Cluster([url], { enableOfflineQueue: false })
      : new Redis(`redis://${url}`, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  client.on('error', () => {});
  return closingClient(initJobQueue({ backend: 'redis', client, keyPrefix: ctx.keyPrefix }), client);
}
