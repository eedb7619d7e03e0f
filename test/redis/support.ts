/**
 * Shared setup of the Redis-only tests, on the common store set-up of test/helpers: one raw
 * client per file, a fresh key prefix per test, every key of the prefix deleted after the test.
 */
import type { Redis } from 'ioredis';
import { onTestFinished } from 'vitest';
import { useQueues, useRedisPrefixes } from '../helpers/backends.js';
import { backendOf, initJobQueue, type JobQueue } from '../../src/queue.js';
import type { Backend, CronStore, WaitStore } from '../../src/backend.js';
import type { Clock } from '../../src/types.js';
import { storeName } from '../../src/backends/redis/keys.js';

export interface RedisTestContext {
  /** Raw client, for inspecting keys. */
  readonly redis: Redis;
  /** A fresh prefix per test. */
  readonly prefix: string;
  /** A queue on the raw client under `prefix` (or another prefix), closed after the test. */
  queue(options?: { prefix?: string; clock?: Clock }): JobQueue;
  /** Every key under `prefix`, via SCAN. */
  keys(prefix?: string): Promise<string[]>;
}

export function useRedis(): RedisTestContext {
  const store = useRedisPrefixes({ prefix: 'qredis' });
  const track = useQueues();

  return {
    get redis() {
      return store.redis;
    },
    get prefix() {
      return store.prefix;
    },
    queue(options) {
      const keyPrefix = options?.prefix ?? store.prefix;
      store.alsoDelete(keyPrefix);
      return track(initJobQueue({ backend: 'redis', client: store.redis, keyPrefix, clock: options?.clock }));
    },
    async keys(p = store.prefix) {
      const found: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await store.redis.scan(cursor, 'MATCH', `${p}*`, 'COUNT', 1000);
        cursor = next;
        found.push(...batch);
      } while (cursor !== '0');
      return found.sort();
    },
  };
}

/**
 * The wake-ups published on the channel of the queue under `prefix` since this call, heard on a
 * connection of its own (a duplicate of `client`), closed when the test ends. Resolves once
 * subscribed.
 */
export async function wakeUps(client: Redis, prefix: string): Promise<{ count: () => number }> {
  const listener = client.duplicate();
  onTestFinished(() => listener.disconnect());
  const channel = storeName(prefix, 'wake', client.options.db ?? 0);
  let heard = 0;
  listener.on('message', (name: string) => {
    if (name === channel) heard++;
  });
  await listener.subscribe(channel);
  return { count: () => heard };
}

/** Open wake-up connections of the queue under `prefix` (named by the backend). */
export async function wakeConnections(client: Redis, prefix: string): Promise<number> {
  const list = (await client.client('LIST')) as string;
  return list.split('\n').filter((line) => line.includes(` name=queuedev-wake:${prefix} `)).length;
}

/** The queue's backend with the cron and wait operations (the Redis backend implements both). */
export function storeOf(q: JobQueue): Backend & CronStore & WaitStore {
  return backendOf(q);
}
