/**
 * The ioredis client of a queue: the caller's (never closed by the library) or one created
 * from `redisConfig` (closed by `close()`). ioredis is loaded only here, on demand.
 */
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import type { ResolvedRedisConfig } from '../../config.js';
import { ConfigError } from '../../errors.js';
import { loadDriver } from '../../load-driver.js';
import { firstContact } from './first-contact.js';

export interface RedisConnection {
  client: Redis;
  /** True when the library created the client and must close it. */
  owned: boolean;
  /**
   * Resolves once the client is on the configured database; every operation awaits it. Until
   * the client has been ready once, it waits for the first connection (first-contact.ts).
   */
  ready: () => Promise<void>;
  /** Removes the listeners the library put on the client; called when the queue closes. */
  release: () => void;
  /** The database the queue's keys are on (0 on a Cluster, which has no other). */
  db: number;
}

const READY = (): Promise<void> => Promise.resolve();

/**
 * Reconnect delays of a client the library creates: 50 ms more per attempt, at most 2 s (the
 * default of ioredis 5). ioredis 6 backs off exponentially to 5 s by default, which makes a
 * command queued during an outage give up only after about 75 s instead of about 10 s; the
 * same schedule on both majors keeps outages surfacing alike.
 */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(attempt * 50, 2000);
}

/**
 * ioredis selects `db` on connect, but when the server refuses it (an index beyond its
 * `databases` setting) it only emits an error and carries on in db 0, where the queue would
 * then read and write. So the first operation sends a SELECT of its own and every operation
 * waits for its reply: a refusal fails them all with a ConfigError. The server's database
 * count is not asked for, as managed Redis often disables CONFIG GET. A connection failure is
 * not remembered; the next operation tries again.
 */
function selectCheck(client: Redis, db: number): () => Promise<void> {
  let check: Promise<void> | null = null;
  return () =>
    (check ??= client.select(db).then(
      () => undefined,
      (err: unknown) => {
        if ((err as Error).name !== 'ReplyError') {
          check = null;
          throw err;
        }
        throw new ConfigError(
          `Expected \`redisConfig.db\` (or the database in \`redisConfig.url\`) to be a database the Redis server has, got ${db} (number); the server replied: ${(err as Error).message}`,
          { cause: err },
        );
      },
    ));
}

export function openConnection(config: ResolvedRedisConfig): RedisConnection {
  if (config.client) {
    const { client } = config;
    const contact = firstContact(client, "the client's settings");
    const db = client.isCluster ? 0 : (client.options.db ?? 0);
    return { client, owned: false, ready: contact.wait, release: contact.release, db };
  }
  const { Redis: RedisClient } = loadDriver('ioredis');
  const rc = config.redisConfig ?? {};
  const options: RedisOptions = { retryStrategy: reconnectDelayMs };
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
  // The database ioredis settled on: a path in `url` wins over `db`.
  const db = client.options.db ?? 0;
  const contact = firstContact(client, rc.url === undefined ? '`redisConfig`' : '`redisConfig.url`');
  const onDatabase = db === 0 ? READY : selectCheck(client, db);
  return { client, owned: true, ready: () => contact.wait().then(onDatabase), release: contact.release, db };
}

/**
 * A new connection with the settings of `client`, for a blocking command that must not stall
 * the client's other commands. A `Cluster` (ioredis 5 or 6) duplicates as a Cluster on the
 * same nodes, whose per-node options carry the name; its `duplicate` takes startup nodes first
 * and replaces `redisOptions` rather than merging them on ioredis 5, hence the copy.
 */
export function dedicatedConnection(client: Redis, connectionName: string): Redis {
  if (!client.isCluster) return client.duplicate({ connectionName });
  const cluster = client as unknown as Cluster;
  return cluster.duplicate([], {
    redisOptions: { ...cluster.options.redisOptions, connectionName },
  }) as unknown as Redis;
}

/** The servers a queue's keys may live on: the server, or each master of a Redis Cluster. */
export function serversOf(client: Redis): Redis[] {
  return client.isCluster ? (client as unknown as Cluster).nodes('master') : [client];
}
