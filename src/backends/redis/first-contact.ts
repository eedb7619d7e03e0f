/**
 * The first connection of a queue to its Redis. ioredis holds a command while it (re)connects
 * and gives up only after `maxRetriesPerRequest` reconnection attempts, about ten seconds by
 * default, and longer or never with other settings. That rides out an outage of a store the
 * queue was using, as it should; but a queue whose Redis was never there (a wrong port or host,
 * a server not started) would make every call wait that long for a generic error.
 *
 * So until the client has been seen ready once, an operation does not hand its command to the
 * client: it waits for the connection, at most FIRST_CONTACT_MS counted from the queue's first
 * call, and then fails with a StoreUnavailableError (reason `connection`) naming the address
 * and the client's last connection error; a server that answers but refuses the client (a wrong
 * password) fails it at once with that reply. Nothing was sent, so nothing can be written later by
 * a command left in the client's offline queue. The client keeps reconnecting meanwhile: once
 * it is ready, calls go through, and from then on the queue rides out outages as ioredis does.
 *
 * "Seen ready" counts from the queue's creation: a caller's client that is ready then counts as
 * reached at once; one still connecting (or created with `lazyConnect`, which is connected here)
 * is waited for like the queue's own. A client created with `enableOfflineQueue: false` fails
 * commands at once while disconnected, so it is waited for only until its first connection
 * attempt fails; then its calls fail at once with the same error until it connects. A client
 * that has ended (closed, or its retryStrategy gave up) is left to fail its commands as closed.
 */
import type { Redis } from 'ioredis';
import { StoreUnavailableError } from '../../errors.js';
import { sanitizeError } from '../../store-errors.js';
import { clientSecrets, refusesCredentials } from './credentials.js';

/** How long the calls of a queue that has never reached its Redis wait for a connection. */
export const FIRST_CONTACT_MS = 2000;

type NodeAddress = string | number | { host?: string; port?: number };

/** Where the client connects: `Redis at host:port`, a socket, sentinels, or a Cluster's startup nodes. */
export function describeAddress(client: Redis): string {
  if (client.isCluster) {
    const nodes = (client as unknown as { startupNodes?: NodeAddress[] }).startupNodes ?? [];
    const list = nodes.map((n) => (typeof n === 'object' ? `${n.host ?? '127.0.0.1'}:${n.port ?? 6379}` : String(n)));
    return `Redis Cluster (startup nodes ${list.join(', ') || 'none'})`;
  }
  const o = client.options;
  if (o.path) return `Redis at socket ${o.path}`;
  if (o.sentinels?.length) {
    const list = o.sentinels.map((s) => `${s.host ?? '127.0.0.1'}:${s.port ?? 26379}`);
    return `Redis master "${o.name ?? ''}" (sentinels ${list.join(', ')})`;
  }
  return `Redis at ${o.host ?? 'localhost'}:${o.port ?? 6379}`;
}

export interface FirstContact {
  /** Resolves once the client has been ready; rejects as described above. */
  wait: () => Promise<void>;
  /** Removes the listeners the wait put on the client (when the queue closes). */
  release: () => void;
}

/**
 * The wait described above for `client`; `settings` names where the address was given
 * (`redisConfig`, or the caller's client) for the message.
 */
export function firstContact(client: Redis, settings: string): FirstContact {
  if (client.status === 'ready') return { wait: () => Promise.resolve(), release: () => undefined };
  let reached = false;
  let lastError: unknown;
  const onError = (err: unknown) => (lastError = err);
  // Leave the caller's client with the listeners it had, once ready or when the queue closes.
  const release = () => {
    client.off('error', onError);
    client.off('ready', onReady);
  };
  const onReady = () => {
    reached = true;
    release();
  };
  client.on('error', onError);
  client.once('ready', onReady);
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a caller's client is checked only structurally
  const queuesOffline = client.options?.enableOfflineQueue !== false;
  let firstCallAt: number | undefined;

  const unreachable = () => {
    const detail = lastError instanceof Error ? ` (${lastError.message})` : '';
    return new StoreUnavailableError(
      'connection',
      `${describeAddress(client)} could not be reached${detail}: the queue has not connected to it since it was created` +
        (queuesOffline ? ` and waited ${FIRST_CONTACT_MS / 1000} s from its first call` : '') +
        `. Check that the server is running and that ${settings} names it; the client keeps trying to connect`,
      { cause: lastError === undefined ? undefined : sanitizeError(lastError, clientSecrets(client)) },
    );
  };

  const wait = async () => {
    if (reached || client.status === 'ready') {
      reached = true;
      return;
    }
    if (client.status === 'end') return;
    // The server answered and refused (a wrong password): no point in waiting, say so now.
    if (isRefusal(lastError)) throw lastError;
    if (client.status === 'wait') client.connect().catch(() => undefined); // lazyConnect
    firstCallAt ??= performance.now();
    // Without an offline queue, only until the first connection attempt has failed.
    const left = queuesOffline || lastError === undefined ? FIRST_CONTACT_MS - (performance.now() - firstCallAt) : 0;
    const outcome = left > 0 ? await readyWithin(client, left, queuesOffline) : 'timeout';
    if (outcome === 'ready' || outcome === 'end') return;
    if (outcome !== 'timeout') throw outcome.refused;
    throw unreachable();
  };
  return { wait, release };
}

/**
 * A reply refusing the client's credentials, as opposed to a socket error. (Other replies while
 * connecting do not stop the wait: ioredis waits out LOADING, and a refused SELECT is
 * connection.ts's to report.)
 */
function isRefusal(err: unknown): err is Error {
  return err instanceof Error && refusesCredentials(err.message);
}

type Outcome = 'ready' | 'end' | 'timeout' | { refused: Error };

/**
 * What comes first: the client is ready, it ends, the server refuses it, or `ms` pass (for a
 * client without an offline queue, or a connection error).
 */
function readyWithin(client: Redis, ms: number, queuesOffline: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const settle = (outcome: Outcome) => {
      clearTimeout(timer);
      client.off('ready', onReady);
      client.off('end', onEnd);
      client.off('error', onError);
      resolve(outcome);
    };
    const onReady = () => settle('ready');
    const onEnd = () => settle('end');
    const onError = (err: unknown) => {
      if (isRefusal(err)) settle({ refused: err });
      else if (!queuesOffline) settle('timeout');
    };
    const timer = setTimeout(() => settle('timeout'), ms);
    client.on('ready', onReady);
    client.on('end', onEnd);
    client.on('error', onError);
  });
}
