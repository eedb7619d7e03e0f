/**
 * A local Redis Cluster for the test run: three masters (no replicas, no persistence) on free
 * ports, in a temporary directory, the slots split evenly between them. This is vitest's global
 * set-up (vitest.config.ts): it starts nothing itself but serves a local URL; the first test
 * file that asks (redisClusterNodes() in redis-cluster.ts) starts the cluster, every later one
 * gets the same nodes, and the teardown stops it. QUEUEDEV_TEST_REDIS_CLUSTER=host:port,...
 * points the tests to a cluster already running instead.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { TestProject } from 'vitest/node';
import { freePort } from './private-servers.js';
import type { ClusterNode } from './redis-cluster.js';
import { waitFor } from './wait.js';

const MASTERS = 3;
const SLOTS = 16384;

export interface LocalCluster {
  readonly nodes: ClusterNode[];
  /** Stops every server and removes their files. */
  stop(): Promise<void>;
}

function requireRedisServer(): void {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'The redis-cluster tests start a local 3-master Redis Cluster and need the redis-server binary ' +
        `(Debian/Ubuntu: apt-get install redis-server), which was not found (${probe.error?.message ?? probe.stderr}). ` +
        'Or set QUEUEDEV_TEST_REDIS_CLUSTER=host:port,... to a running cluster, or leave redis-cluster out of QUEUEDEV_TEST_BACKENDS.',
    );
  }
}

async function answers(port: number): Promise<boolean> {
  const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  try {
    await probe.connect();
    await probe.ping(); // rejects until the server answers
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

/**
 * Starts `masters` cluster-enabled servers (the i-th with `args(i)` added), gives each an even share
 * of the slots and joins them. Also used directly by tests that need a cluster of their own.
 */
export async function startRedisCluster(
  options: { masters?: number; args?: (index: number) => string[] } = {},
): Promise<LocalCluster> {
  const masters = options.masters ?? MASTERS;
  requireRedisServer();
  const dir = mkdtempSync(join(tmpdir(), 'queuedev-cluster-'));
  const children: ChildProcess[] = [];
  const clients: Redis[] = [];
  const stop = async () => {
    for (const client of clients) client.disconnect();
    await Promise.all(
      children.map((child) => {
        if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        return exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ports: number[] = [];
    for (let i = 0; i < masters; i++) {
      const port = await freePort();
      ports.push(port);
      // Each server writes its own nodes file; --dir keeps it in the temporary directory.
      const args = [
        ['--port', String(port)],
        ['--bind', '127.0.0.1'],
        ['--dir', dir],
        ['--cluster-enabled', 'yes'],
        ['--cluster-config-file', `nodes-${port}.conf`],
        ['--cluster-node-timeout', '5000'],
        ['--save', ''],
        ['--appendonly', 'no'],
        ['--maxmemory-policy', 'noeviction'],
        options.args?.(i) ?? [],
      ].flat();
      children.push(spawn('redis-server', args, { stdio: 'ignore' }));
    }
    for (const port of ports) {
      await waitFor(() => answers(port), { what: `redis-server on port ${port}`, timeoutMs: 20_000, intervalMs: 50 });
      clients.push(new Redis({ port, host: '127.0.0.1' }));
    }
    const per = Math.ceil(SLOTS / masters);
    for (const [i, client] of clients.entries()) {
      const slots = Array.from({ length: Math.min(per, SLOTS - i * per) }, (_, k) => i * per + k);
      await client.call('CLUSTER', 'ADDSLOTS', ...slots.map(String));
      // Distinct epochs, as redis-cli --cluster create sets them: no collision to resolve first.
      await client.call('CLUSTER', 'SET-CONFIG-EPOCH', String(i + 1));
    }
    for (const port of ports.slice(1)) await clients[0]!.call('CLUSTER', 'MEET', '127.0.0.1', String(port));
    await waitFor(
      async () => {
        for (const client of clients) {
          const info = String(await client.call('CLUSTER', 'INFO'));
          if (!info.includes('cluster_state:ok') || !info.includes(`cluster_known_nodes:${masters}`)) return false;
        }
        return true;
      },
      { what: 'cluster_state:ok on every node', timeoutMs: 30_000, intervalMs: 100 },
    );
    for (const client of clients) client.disconnect();
    clients.length = 0;
    return { nodes: ports.map((port) => ({ host: '127.0.0.1', port })), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const existing = process.env.QUEUEDEV_TEST_REDIS_CLUSTER;
  if (existing) {
    project.provide('redisCluster', `nodes:${existing}`);
    return undefined;
  }
  let cluster: Promise<LocalCluster> | undefined;
  const server = createServer((_request, response) => {
    cluster ??= startRedisCluster();
    cluster.then(
      (c) => response.end(JSON.stringify(c.nodes)),
      (err: unknown) => {
        response.statusCode = 500;
        response.end((err as Error).message);
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  project.provide('redisCluster', `http://127.0.0.1:${port}/`);
  return async () => {
    await new Promise((resolve) => server.close(resolve));
    const started = await cluster?.catch(() => undefined);
    await started?.stop();
  };
}
