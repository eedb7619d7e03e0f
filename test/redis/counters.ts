/**
 * What the Redis server executes, for the cost tests: a private redis-server per test file, so
 * no other client's commands are counted, and its INFO commandstats, which counts the commands
 * run inside scripts too.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startPrivateRedis, type PrivateServer } from '../helpers/private-servers.js';

export interface PrivateRedis {
  /** A client of the file's private server. */
  readonly client: Redis;
}

/** Starts a private redis-server before the file's tests and stops it after them. */
export function usePrivateRedis(): PrivateRedis {
  let server: PrivateServer;
  let client: Redis;
  beforeAll(async () => {
    server = await startPrivateRedis();
    client = new Redis({ port: server.port });
  }, 30_000);
  afterAll(async () => {
    client.disconnect();
    await server.stop();
  });
  return {
    get client() {
      return client;
    },
  };
}

/**
 * Calls the server executed so far of the commands whose name `counts` accepts; by default every
 * command except INFO itself (the probe).
 */
export async function commandCalls(
  client: Redis,
  counts: (name: string) => boolean = (name) => name !== 'info',
): Promise<number> {
  const info = await client.info('commandstats');
  let total = 0;
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    if (counts(m[1]!)) total += Number(m[2]);
  }
  return total;
}
