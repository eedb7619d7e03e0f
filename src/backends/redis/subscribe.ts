/**
 * Wake-up notifications: scripts that make a job available push to the `wake` list (kept at
 * one entry); each subscription blocks on it with BLPOP on a dedicated connection, because a
 * blocking command would stall every other command sharing the connection. On a Redis Cluster
 * the dedicated connection is a Cluster too, and BLPOP goes to the master of the queue's slot.
 */
import type { Redis } from 'ioredis';
import { dedicatedConnection } from './connection.js';

/** Seconds a BLPOP waits before looping, so an unsubscribe or reconnect is noticed soon. */
const BLOCK_SECONDS = 1;
/** Pause after a failed BLPOP (e.g. while Redis restarts) before trying again. */
const RETRY_DELAY_MS = 500;

export interface Subscriptions {
  subscribe(listener: () => void): Promise<() => Promise<void>>;
  /** Ends every open subscription. */
  closeAll(): Promise<void>;
}

/**
 * `connectionName` names the dedicated connections (CLIENT SETNAME), so they can be told apart
 * in CLIENT LIST.
 */
export function createSubscriptions(client: Redis, wakeKey: string, connectionName: string): Subscriptions {
  const open = new Set<() => Promise<void>>();

  /** Opens one subscription and returns its unsubscribe. */
  function start(listener: () => void): () => Promise<void> {
    // Reconnects on its own (ioredis retry strategy); the loop just carries on afterwards.
    const connection = dedicatedConnection(client, connectionName);
    // Errors surface as failed BLPOPs below; without a listener ioredis prints each reconnect.
    connection.on('error', () => {});
    let stopped = false;
    // Read through a call: unsubscribe sets it while the loop awaits, which narrowing cannot see.
    const isStopped = () => stopped;
    const loop = (async () => {
      while (!isStopped()) {
        try {
          const popped = await connection.blpop(wakeKey, BLOCK_SECONDS);
          if (popped && !isStopped()) {
            try {
              listener();
            } catch {
              // A throwing listener must not end the subscription; polling still runs.
            }
            // The woken processor sends its claim from the promise callbacks that follow the
            // listener: the next BLPOP waits for them, so the claim is written first and does
            // not queue behind a socket write on the pickup's path. A push meanwhile stays in
            // the list for that BLPOP.
            await new Promise((resolve) => setImmediate(resolve));
          }
        } catch {
          if (!isStopped()) await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
        }
      }
    })();
    const unsubscribe = async () => {
      if (stopped) return;
      stopped = true;
      open.delete(unsubscribe);
      connection.disconnect();
      await loop;
    };
    open.add(unsubscribe);
    return unsubscribe;
  }

  /** A failure to open the connection rejects, as the processor's catch expects; it never throws. */
  function subscribe(listener: () => void): Promise<() => Promise<void>> {
    return new Promise((resolve) => {
      resolve(start(listener));
    });
  }

  return {
    subscribe,
    async closeAll() {
      await Promise.all([...open].map((unsubscribe) => unsubscribe()));
    },
  };
}
