/**
 * The ioredis client of a queue: the caller's (never closed by the library) or one created
 * from `redisConfig` (closed by `close()`). ioredis is loaded only here, on demand.
 */
import type { Redis, RedisOptions } from 'ioredis';
import type { ResolvedRedisConfig } from '../../config.js';
import { loadDriver } from '../../load-driver.js';

export interface RedisConnection {
  client: Redis;
  /** True when the library created the client and must close it. */
  owned: boolean;
}

export function openConnection(config: ResolvedRedisConfig): RedisConnection {
  if (config.client) return { client: config.client, owned: false };
  const { Redis: RedisClient } = loadDriver<typeof import('ioredis')>('ioredis');
  const rc = config.redisConfig ?? {};
  const options: RedisOptions = {};
  if (rc.host !== undefined) options.host = rc.host;
  if (rc.port !== undefined) options.port = rc.port;
  if (rc.password !== undefined) options.password = rc.password;
  if (rc.db !== undefined) options.db = rc.db;
  if (rc.tls) {
    options.tls = {
      rejectUnauthorized: rc.tls.rejectUnauthorized,
      ...(rc.tls.ca !== undefined ? { ca: rc.tls.ca } : {}),
      ...(rc.tls.cert !== undefined ? { cert: rc.tls.cert } : {}),
      ...(rc.tls.key !== undefined ? { key: rc.tls.key } : {}),
    };
  }
  // ioredis fills in from `options` only what the URL leaves unset.
  const client = rc.url ? new RedisClient(rc.url, options) : new RedisClient(options);
  // Connection errors reach the caller as failed commands (and the processor's onError); without
  // a listener ioredis would also print every reconnect attempt to the console.
  client.on('error', () => {});
  return { client, owned: true };
}
