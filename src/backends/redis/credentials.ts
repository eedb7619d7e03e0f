/**
 * The credentials of a queue's ioredis client: its passwords (masked in errors and in the log)
 * and the replies that refuse them. Apart from store-errors.ts so that the connection modules
 * can use them without importing the translation (and, through it, the scripts).
 */
import type { Redis } from 'ioredis';
import { secretsOf } from '../../store-errors.js';

/** Reply prefixes of refused or missing credentials. */
export const AUTH_REPLIES = /^(NOAUTH|WRONGPASS)\b|^ERR (invalid password|AUTH|Client sent AUTH)/;

/** Whether a reply refuses the client's credentials. */
export function refusesCredentials(message: string): boolean {
  return AUTH_REPLIES.test(message);
}

/** The passwords of `client`'s settings: masked in errors and in the queue's log. */
export function clientSecrets(client: Redis): string[] {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the caller's client is checked only structurally (RedisClient) and may have no ioredis `options`
  const options = (client.options ?? {}) as {
    password?: unknown;
    sentinelPassword?: unknown;
    /** A `Cluster`'s options for each node connection. */
    redisOptions?: { password?: unknown };
  };
  return secretsOf(options.password, options.sentinelPassword, options.redisOptions?.password);
}
