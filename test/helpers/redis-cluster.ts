/**
 * The Redis Cluster of the test run (started by redis-cluster-setup.ts, vitest's global set-up,
 * on the first call of redisClusterNodes() in the run), and what test files need of it.
 */
import { inject } from 'vitest';

export interface ClusterNode {
  host: string;
  port: number;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** `nodes:<host:port,...>` (a cluster already running) or the URL that starts one on demand. */
    redisCluster: string;
  }
}

/** `host:port,host:port` → nodes; a malformed list fails naming where it came from. */
export function parseNodes(list: string, source: string): ClusterNode[] {
  return list.split(',').map((entry) => {
    const match = /^\s*([^:\s]+):(\d+)\s*$/.exec(entry);
    if (!match) throw new Error(`${source}: expected host:port,host:port,... got ${JSON.stringify(list)}`);
    return { host: match[1]!, port: Number(match[2]) };
  });
}

let nodes: Promise<ClusterNode[]> | undefined;

/** The nodes of the test run's cluster; the first call of the run starts it. */
export function redisClusterNodes(): Promise<ClusterNode[]> {
  nodes ??= (async () => {
    const source = inject('redisCluster');
    if (source.startsWith('nodes:')) return parseNodes(source.slice('nodes:'.length), 'QUEUEDEV_TEST_REDIS_CLUSTER');
    const reply = await fetch(source, { method: 'POST' });
    const body = await reply.text();
    if (!reply.ok) throw new Error(body);
    return JSON.parse(body) as ClusterNode[];
  })();
  return nodes;
}

/** `host:port,...` of the nodes, for child processes (QD_REDIS_CLUSTER). */
export function formatNodes(list: ClusterNode[]): string {
  return list.map((n) => `${n.host}:${n.port}`).join(',');
}
