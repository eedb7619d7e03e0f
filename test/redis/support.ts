/**
 * Shared setup of the Redis-only tests: one raw client per file, a fresh key prefix per test,
 * every key of the prefix deleted after the test.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { REDIS_URL, deleteKeys, uniqueName } from '../helpers/backends.js';
import { backendOf, initJobQueue, type JobQueue } from '../../src/queue.js';
import type { Backend, CronStore, WaitStore } from '../../src/backend.js';
import type { Clock, PayloadMap } from '../../src/types.js';

export interface RedisTestContext {
  /** Raw client, for inspecting keys. */
  readonly redis: Redis;
  /** A fresh prefix per test. */
  readonly prefix: string;
  /** A queue on the raw client under `prefix` (or another prefix), closed after the test. */
  queue(options?: { prefix?: string; clock?: Clock }): JobQueue<PayloadMap>;
  /** Every key under `prefix`, via SCAN. */
  keys(prefix?: string): Promise<string[]>;
}

export function useRedis(): RedisTestContext {
  let redis: Redis;
  let prefix = '';
  let prefixes: string[] = [];
  let queues: JobQueue<PayloadMap>[] = [];

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  beforeEach(() => {
    prefix = `${uniqueName('qredis')}:`;
    prefixes = [prefix];
  });
  afterEach(async () => {
    await Promise.all(queues.map((q) => q.close()));
    queues = [];
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
    queue(options) {
      const keyPrefix = options?.prefix ?? prefix;
      if (!prefixes.includes(keyPrefix)) prefixes.push(keyPrefix);
      const q = initJobQueue({ backend: 'redis', client: redis, keyPrefix, clock: options?.clock });
      queues.push(q);
      return q;
    },
    async keys(p = prefix) {
      const found: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await redis.scan(cursor, 'MATCH', `${p}*`, 'COUNT', 1000);
        cursor = next;
        found.push(...batch);
      } while (cursor !== '0');
      return found.sort();
    },
  };
}

/** Open wake-up connections of the queue under `prefix` (named by the backend). */
export async function wakeConnections(client: Redis, prefix: string): Promise<number> {
  const list = (await client.client('LIST')) as string;
  return list.split('\n').filter((line) => line.includes(` name=queuedev-wake:${prefix} `)).length;
}

export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The queue's backend with the cron and wait operations (the Redis backend implements both). */
export function storeOf(q: JobQueue<PayloadMap>): Backend & CronStore & WaitStore {
  return backendOf(q) as Backend & CronStore & WaitStore;
}
