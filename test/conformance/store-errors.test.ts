/**
 * Store failures reach the application as one typed error (issue 7 item 11): an unreachable,
 * stopped or credential-refusing store rejects with StoreUnavailableError (code
 * STORE_UNAVAILABLE) whose `cause` is the driver's error, and no error the queue reports
 * carries the store password. Each backend runs against a private server of its own, so the
 * shared ones are never stopped.
 */
import { inspect } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { QueueError, StoreUnavailableError } from '../../src/errors.js';
import { migrate } from '../../src/index.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { JobQueueConfig } from '../../src/types.js';
import { forEachBackend, type BackendName } from '../helpers/backends.js';
import { freePort, startPrivatePostgres, startPrivateRedis, type PrivateServer } from '../helpers/private-servers.js';

const SERVER_PASSWORD = 'right-Pw-4e1f9a';
const WRONG_PASSWORD = 'Wr0ng-s3cret-Xq7k2';

/** A queue of `backend` on 127.0.0.1:`port`, logging in with `password`. */
function queueConfig(backend: BackendName, port: number, password: string, clients: Redis[]): JobQueueConfig {
  if (backend === 'postgres') {
    return {
      backend: 'postgres',
      databaseConfig: { host: '127.0.0.1', port, user: 'postgres', database: 'postgres', password },
      schema: 'public',
    };
  }
  // ioredis retries a command 20 times by default (about 10 s) before failing it; one retry
  // keeps the test short and fails the same way.
  const client = new Redis({ host: '127.0.0.1', port, password, maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  clients.push(client);
  return { backend: 'redis', client };
}

/** Everything util.inspect can reach from the error: own fields, hidden ones, the whole cause chain. */
function serialise(error: unknown): string {
  return inspect(error, { depth: Infinity, showHidden: true, getters: true });
}

const STORE_ERRORS = {
  title: 'store errors (issue 7 item 11)',
  skip: {
    pglite:
      'PGlite has no server to stop, no port and no password; test/pglite/pglite.test.ts covers an instance closed under the queue',
    'redis-cluster':
      'each test starts, stops or locks out a private single-node server with a password; a Cluster that cannot be reached is covered by close.test.ts and supervisor.test.ts (unreachableQueue)',
  },
};

forEachBackend(STORE_ERRORS, (ctx) => {
  /** Undefined when beforeAll failed before starting it. */
  let server: PrivateServer | undefined;
  let queues: JobQueue[] = [];
  let clients: Redis[] = [];

  const open = (config: JobQueueConfig) => {
    const queue = initJobQueue(config);
    queues.push(queue);
    return queue;
  };

  beforeAll(async () => {
    server =
      ctx.backend === 'postgres'
        ? await startPrivatePostgres({ password: SERVER_PASSWORD })
        : await startPrivateRedis({ password: SERVER_PASSWORD });
    if (ctx.backend === 'postgres') {
      await migrate({
        databaseUrl: `postgres://postgres:${SERVER_PASSWORD}@127.0.0.1:${server.port}/postgres`,
        schema: 'public',
      });
    }
  }, 60_000);
  afterEach(async () => {
    await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
    for (const client of clients) client.disconnect();
    queues = [];
    clients = [];
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('rejects with StoreUnavailableError (reason connection) and the driver error as cause when nothing listens on the port', async () => {
    const port = await freePort();
    const queue = open(queueConfig(ctx.backend, port, SERVER_PASSWORD, clients));
    const error = await queue.addJob({ jobType: 'x', payload: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toBeInstanceOf(QueueError);
    expect((error as StoreUnavailableError).code).toBe('STORE_UNAVAILABLE');
    expect((error as StoreUnavailableError).reason).toBe('connection');
    const cause = (error as Error).cause as Error & { code?: string };
    expect(cause).toBeInstanceOf(Error);
    expect(cause.code).toBe('ECONNREFUSED');
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    await expect(queue.getJob(1)).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('passes StoreUnavailableError to a processor’s onError and the error event', async () => {
    const queue = open(queueConfig(ctx.backend, await freePort(), SERVER_PASSWORD, clients));
    const emitted: Error[] = [];
    const passed: Error[] = [];
    queue.on('error', (e) => emitted.push(e));
    await expect(
      queue.createProcessor({ x: async () => {} }, { onError: (e) => passed.push(e) }).start(),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(emitted.length).toBeGreaterThan(0);
    expect(passed.length).toBeGreaterThan(0);
    // The processor may add context (`enqueueing due cron jobs failed`), keeping the typed error as cause.
    for (const e of [...emitted, ...passed])
      expect(e instanceof StoreUnavailableError ? e : e.cause).toBeInstanceOf(StoreUnavailableError);
  });

  it('rejects with StoreUnavailableError once the store it was using stops', async () => {
    const stopped =
      ctx.backend === 'postgres'
        ? await startPrivatePostgres({ password: SERVER_PASSWORD })
        : await startPrivateRedis({ password: SERVER_PASSWORD });
    try {
      if (ctx.backend === 'postgres') {
        await migrate({
          databaseUrl: `postgres://postgres:${SERVER_PASSWORD}@127.0.0.1:${stopped.port}/postgres`,
          schema: 'public',
        });
      }
      const queue = open(queueConfig(ctx.backend, stopped.port, SERVER_PASSWORD, clients));
      expect(await queue.addJob({ jobType: 'x', payload: {} })).toBe(1);
      await stopped.stop();
      const error = await queue.addJob({ jobType: 'x', payload: {} }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as StoreUnavailableError).reason).toBe('connection');
      expect((error as Error).cause).toBeInstanceOf(Error);
    } finally {
      await stopped.stop();
    }
  }, 60_000);

  it('reports a wrong password as StoreUnavailableError (reason authentication) without the password anywhere in it', async () => {
    const port = server!.port;
    // The library's own connection, built from the settings a user writes.
    const config: JobQueueConfig =
      ctx.backend === 'postgres'
        ? {
            backend: 'postgres',
            databaseConfig: { connectionString: `postgres://postgres:${WRONG_PASSWORD}@127.0.0.1:${port}/postgres` },
          }
        : { backend: 'redis', redisConfig: { host: '127.0.0.1', port, password: WRONG_PASSWORD } };
    const queue = open(config);
    const reported: unknown[] = [];
    queue.on('error', (e) => reported.push(e));
    reported.push(await queue.addJob({ jobType: 'x', payload: {} }).catch((e: unknown) => e));
    reported.push(await queue.getJobs().catch((e: unknown) => e));
    await queue
      .createProcessor({ x: async () => {} }, { onError: (e) => reported.push(e) })
      .start()
      .catch((e: unknown) => reported.push(e));
    await queue
      .createSupervisor({ onError: (e) => reported.push(e) })
      .start()
      .catch((e: unknown) => reported.push(e));

    expect(reported.length).toBeGreaterThanOrEqual(5);
    for (const error of reported) {
      const text = serialise(error);
      expect(text).not.toContain(WRONG_PASSWORD);
      expect(text).not.toContain(SERVER_PASSWORD);
    }
    const direct = reported[0] as StoreUnavailableError;
    expect(direct).toBeInstanceOf(StoreUnavailableError);
    expect(direct.reason).toBe('authentication');
    expect(direct.cause).toBeInstanceOf(Error);
    expect(serialise(direct)).toMatch(ctx.backend === 'postgres' ? /28P01/ : /WRONGPASS/);
  });
});
