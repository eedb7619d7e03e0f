/**
 * The eviction check (src/backends/redis/durability.ts): a Redis whose maxmemory-policy is not
 * noeviction is reported once when the queue first uses it, on the `error` event, or as a warn
 * line of the queue's log when nothing listens; `noeviction`, or a server refusing CONFIG, reports nothing and breaks nothing. Each
 * test runs on a private server (or cluster) started with the policy under test: the shared
 * server's settings are never changed.
 */
import { Cluster, Redis } from 'ioredis';
import { afterEach, expect, it, vi } from 'vitest';
import { EvictionPolicyError, QueueError } from '../../src/errors.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import { startPrivateRedis, type PrivateServer } from '../helpers/private-servers.js';
import { startRedisCluster, type LocalCluster } from '../helpers/redis-cluster-setup.js';
import { waitFor } from '../helpers/wait.js';

let servers: (PrivateServer | LocalCluster)[] = [];
let clients: (Redis | Cluster)[] = [];
let queues: JobQueue[] = [];

afterEach(async () => {
  await Promise.all(queues.map((q) => q.close()));
  for (const client of clients) client.disconnect();
  await Promise.all(servers.map((s) => s.stop()));
  servers = [];
  clients = [];
  queues = [];
  vi.restoreAllMocks();
});

async function privateRedis(args: string[]): Promise<Redis> {
  const server = await startPrivateRedis({ args });
  servers.push(server);
  const client = new Redis({ host: '127.0.0.1', port: server.port });
  clients.push(client);
  return client;
}

/**
 * A verbose queue on `client`, its error events (unless `listen` is false), and the lines about
 * the policy it wrote to the console, on any stream.
 */
function watchedQueue(client: Redis | Cluster, { listen = true } = {}) {
  const spies = (['log', 'warn', 'error'] as const).map((level) =>
    vi.spyOn(console, level).mockImplementation(() => {}),
  );
  const queue = initJobQueue({ backend: 'redis', client, keyPrefix: 'dur:', verbose: true });
  queues.push(queue);
  const errors: Error[] = [];
  if (listen) queue.on('error', (e) => errors.push(e));
  const [log, warn, error] = spies.map(
    (spy) => () => spy.mock.calls.map((c) => String(c[0])).filter((line) => line.includes('maxmemory-policy')),
  ) as [() => string[], () => string[], () => string[]];
  const logged = () => [...log(), ...warn(), ...error()];
  return { queue, errors, logged, warned: warn };
}

/** Several operations, so a check repeated per call would show. */
async function useQueue(queue: JobQueue): Promise<void> {
  await queue.addJob({ jobType: 'a', payload: {} });
  await queue.addJobs([{ jobType: 'a', payload: {} }]);
  expect(await queue.getJobs(undefined, 2)).toHaveLength(2);
  expect(await queue.createProcessor({ a: async () => {} }).start()).toBe(2);
}

/** How many CONFIG commands the server ran (its command statistics). */
async function configCalls(client: Redis): Promise<number> {
  const stats = await client.info('commandstats');
  return Number(/cmdstat_config(?:\|get)?:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

it('reports an evicting Redis once, on the error event only, naming the policy and the fix', async () => {
  const client = await privateRedis(['--maxmemory-policy', 'allkeys-lru']);
  const { queue, errors, logged } = watchedQueue(client);
  await useQueue(queue);
  await waitFor(() => errors.length > 0, { what: 'the eviction report' });
  await useQueue(queue);

  expect(errors).toHaveLength(1);
  const error = errors[0] as EvictionPolicyError;
  expect(error).toBeInstanceOf(EvictionPolicyError);
  expect(error).toBeInstanceOf(QueueError);
  expect(error.code).toBe('EVICTION_POLICY');
  expect(error.policies).toEqual({ [`127.0.0.1:${client.options.port}`]: 'allkeys-lru' });
  expect(error.message).toContain('maxmemory-policy allkeys-lru');
  expect(error.message).toContain('"dur:"');
  expect(error.message).toMatch(/deletes jobs.*silently/);
  expect(error.message).toContain('noeviction');
  // The program listens: nothing is written twice.
  expect(logged()).toEqual([]);
});

it('writes an evicting Redis to the console once, as a warning, when nothing listens for errors', async () => {
  const client = await privateRedis(['--maxmemory-policy', 'allkeys-lru']);
  const { queue, logged, warned } = watchedQueue(client, { listen: false });
  await useQueue(queue);
  await waitFor(() => logged().length > 0, { what: 'the eviction line' });
  await useQueue(queue);
  // A risk, not a loss: a warning; the console's error stream stays for data that is gone.
  expect(warned()).toEqual([expect.stringMatching(/^\[queuedev\] .*maxmemory-policy allkeys-lru.*noeviction/)]);
  expect(logged()).toEqual(warned());
});

it('says nothing about a Redis with noeviction, and asks it once', async () => {
  const client = await privateRedis(['--maxmemory-policy', 'noeviction']);
  const { queue, errors, logged } = watchedQueue(client);
  await useQueue(queue);
  await waitFor(async () => (await configCalls(client)) === 1, { what: 'the policy to be read' });
  await useQueue(queue);
  expect(await configCalls(client)).toBe(1);
  expect(errors).toEqual([]);
  expect(logged()).toEqual([]);
});

it('carries on silently when the server refuses CONFIG, as managed services do', async () => {
  const client = await privateRedis(['--maxmemory-policy', 'allkeys-lru', '--rename-command', 'CONFIG', '']);
  await expect(client.config('GET', 'maxmemory-policy')).rejects.toThrow(/unknown command/);
  const { queue, errors, logged } = watchedQueue(client);
  await useQueue(queue);
  // The refusal comes back on the same connection, before the replies of these calls.
  await useQueue(queue);
  expect(errors).toEqual([]);
  expect(logged()).toEqual([]);
});

it('checks every master of a Redis Cluster and names the evicting ones', { timeout: 60_000 }, async () => {
  // Two masters, the second evicting.
  const cluster = await startRedisCluster({
    masters: 2,
    args: (i) => ['--maxmemory-policy', i === 1 ? 'volatile-lru' : 'noeviction'],
  });
  servers.push(cluster);
  const client = new Cluster(cluster.nodes);
  clients.push(client);
  const { queue, errors } = watchedQueue(client);
  await useQueue(queue);
  await waitFor(() => errors.length > 0, { what: 'the eviction report' });
  const evicting = cluster.nodes[1]!;
  expect((errors[0] as EvictionPolicyError).policies).toEqual({
    [`${evicting.host}:${evicting.port}`]: 'volatile-lru',
  });
  expect(errors).toHaveLength(1);
});
