/**
 * A queue that has never reached its Redis fails its calls within about two seconds with a
 * StoreUnavailableError (reason `connection`) naming the address, instead of waiting for
 * ioredis to give up on the command (about ten seconds by default); a queue that was connected
 * rides out an outage as before. Covers the queue's own client (`redisConfig`), a caller's
 * ioredis 6 and ioredis 5 client, a caller's Cluster, a lazyConnect client and a client without
 * an offline queue. The unreachable address is a port nothing listens on; the outage runs on a
 * private redis-server that the test starts and stops.
 */
import { Cluster, Redis } from 'ioredis';
import { Redis as Redis5 } from 'ioredis5';
import { afterEach, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { RedisQueueConfig } from '../../src/types.js';
import { REDIS_URL, deleteKeys, uniqueName } from '../helpers/backends.js';
import { freePort, startPrivateRedis, type PrivateServer } from '../helpers/private-servers.js';
import { sleep, waitFor } from '../helpers/wait.js';

/** Well under ioredis' own ten seconds, and loose enough for a loaded machine. */
const BOUND_MS = 5000;

let queues: JobQueue[] = [];
let clients: { disconnect(): void }[] = [];
let server: PrivateServer | undefined;
afterEach(async () => {
  await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
  for (const client of clients) client.disconnect();
  await server?.stop();
  queues = [];
  clients = [];
  server = undefined;
});

function open(config: RedisQueueConfig): JobQueue {
  const queue = initJobQueue(config);
  queues.push(queue);
  return queue;
}

/** A caller's client, closed after the test; its connection errors are expected. */
function own<C extends { disconnect(): void; on(event: 'error', listener: () => void): unknown }>(client: C): C {
  client.on('error', () => undefined);
  clients.push(client);
  return client;
}

/** The first call's error and how long it took. */
async function firstCall(queue: JobQueue): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await queue.addJob({ jobType: 'x', payload: {} }).catch((e: unknown) => e);
  return { error, ms: performance.now() - started };
}

function expectUnreachable(error: unknown, address: string): void {
  expect(error).toBeInstanceOf(StoreUnavailableError);
  const e = error as StoreUnavailableError;
  expect(e.reason).toBe('connection');
  expect(e.message).toContain(address);
  expect(e.message).toContain('could not be reached');
}

it.each([
  ['its own client (redisConfig.url)', (port: number) => ({ redisConfig: { url: `redis://127.0.0.1:${port}` } })],
  ['its own client (host and port)', (port: number) => ({ redisConfig: { host: '127.0.0.1', port } })],
  ["a caller's ioredis 6 client", (port: number) => ({ client: own(new Redis({ host: '127.0.0.1', port })) })],
  ["a caller's ioredis 5 client", (port: number) => ({ client: own(new Redis5({ host: '127.0.0.1', port })) })],
])(
  'fails the first call of a queue that never reached its Redis, through %s, naming the address',
  async (_label, settings) => {
    const port = await freePort();
    const queue = open({ backend: 'redis', ...settings(port) });
    const { error, ms } = await firstCall(queue);
    expectUnreachable(error, `Redis at 127.0.0.1:${port}`);
    expect(((error as Error).cause as { code?: string }).code).toBe('ECONNREFUSED');
    expect(ms).toBeLessThan(BOUND_MS);
    // Later calls are refused the same way while the store stays out of reach.
    await expect(queue.getJob(1)).rejects.toBeInstanceOf(StoreUnavailableError);
  },
);

it("fails the first call through a caller's Cluster that never reached a node, naming the startup nodes", async () => {
  const port = await freePort();
  const queue = open({ backend: 'redis', client: own(new Cluster([{ host: '127.0.0.1', port }])) });
  const { error, ms } = await firstCall(queue);
  expectUnreachable(error, `Redis Cluster (startup nodes 127.0.0.1:${port})`);
  expect(ms).toBeLessThan(BOUND_MS);
});

it('fails at once, naming the address, through a client without an offline queue', async () => {
  const port = await freePort();
  const client = own(new Redis({ host: '127.0.0.1', port, enableOfflineQueue: false }));
  const queue = open({ backend: 'redis', client });
  expectUnreachable((await firstCall(queue)).error, `Redis at 127.0.0.1:${port}`);
});

it('connects a lazyConnect client on its first call', async () => {
  const keyPrefix = `${uniqueName('qlazy')}:`;
  const client = own(new Redis(REDIS_URL, { lazyConnect: true }));
  const queue = open({ backend: 'redis', client, keyPrefix });
  try {
    expect(await queue.addJob({ jobType: 'x', payload: {} })).toBe(1);
  } finally {
    await deleteKeys(client, `${keyPrefix}*`);
  }
});

it('works once the store comes up, and then rides out an outage longer than the first-contact wait', async () => {
  const port = await freePort();
  const queue = open({ backend: 'redis', redisConfig: { url: `redis://127.0.0.1:${port}` } });
  expectUnreachable((await firstCall(queue)).error, `Redis at 127.0.0.1:${port}`);

  server = await startPrivateRedis({ port });
  const id = await waitFor(() => queue.addJob({ jobType: 'x', payload: {} }).catch(() => undefined), {
    timeoutMs: 15_000,
    intervalMs: 200,
    what: 'a call to succeed once Redis is up',
  });
  expect(await queue.getJob(id!)).toMatchObject({ status: 'pending' });
  queue.on('error', () => undefined); // the restarted store is empty: reported as a reset

  await server.stop();
  const during = queue.addJob({ jobType: 'x', payload: {} });
  const outcome = during.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await sleep(3000);
  server = await startPrivateRedis({ port });
  // Held by the client while it reconnected, then sent.
  expect(await outcome).toEqual({ value: expect.any(Number) });
}, 60_000);

it("leaves a caller's client with the listeners it had, once ready or when the queue closes", async () => {
  const unreachable = own(new Redis({ host: '127.0.0.1', port: await freePort() }));
  const before = [unreachable.listenerCount('error'), unreachable.listenerCount('ready')];
  const queue = initJobQueue({ backend: 'redis', client: unreachable });
  await queue.getJob(1).catch(() => undefined);
  await queue.close();
  expect([unreachable.listenerCount('error'), unreachable.listenerCount('ready')]).toEqual(before);

  const reachable = own(new Redis(REDIS_URL, { lazyConnect: true }));
  const counts = [reachable.listenerCount('error'), reachable.listenerCount('ready')];
  const other = open({ backend: 'redis', client: reachable, keyPrefix: `${uniqueName('qlisten')}:` });
  expect(await other.getJob(1)).toBeNull();
  expect([reachable.listenerCount('error'), reachable.listenerCount('ready')]).toEqual(counts);
});

it('closes a queue that never reached its Redis while a processor waits to subscribe', async () => {
  const port = await freePort();
  const queue = initJobQueue({ backend: 'redis', redisConfig: { url: `redis://127.0.0.1:${port}` } });
  queue.createProcessor({ x: async () => undefined }, { onError: () => undefined }).startInBackground();
  // The processor's SUBSCRIBE now waits on a connection that was never made.
  await sleep(300);
  const outcome = await Promise.race([
    queue.close({ timeoutMs: 500 }).then(() => 'closed'),
    sleep(BOUND_MS).then(() => 'still closing'),
  ]);
  expect(outcome).toBe('closed');
});
