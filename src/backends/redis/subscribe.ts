/**
 * Wake-up notifications: scripts that make a job available PUBLISH on the queue's `wake`
 * channel (includes/wake.lua), and every subscribed connection hears it, as every LISTEN
 * connection hears a NOTIFY on PostgreSQL: each idle processor of the queue, in any process,
 * looks for work. The queue subscribes on ONE dedicated connection (a connection in subscriber
 * mode takes no other command), shared by all its subscribers. On a Redis Cluster it is a
 * Cluster too; a PUBLISH reaches subscribers on every node.
 *
 * A message is heard only while subscribed. So once the subscription is in place, and again
 * after each reconnection, every listener is called as if a message had come: their claim
 * finds whatever was published meanwhile.
 */
import type { Redis } from 'ioredis';
import { dedicatedConnection } from './connection.js';

/** Pause after a failed SUBSCRIBE (e.g. while Redis restarts) before trying again. */
const RETRY_DELAY_MS = 500;
/** Longest wait, at close, for the subscribing loop to end. */
const CLOSE_WAIT_MS = 100;

export interface Subscriptions {
  /**
   * Adds a listener. Rejects when the server refuses the subscription (an ACL user without
   * access to the channel); otherwise resolves after the first attempt, and a subscription
   * that failed for want of a connection goes on trying.
   */
  subscribe(listener: () => void): Promise<() => Promise<void>>;
  /** Ends every open subscription. */
  closeAll(): Promise<void>;
}

/** The shared connection while any listener is subscribed. */
interface Channel {
  /** Settles after the first SUBSCRIBE: rejected when the server refused it. */
  firstAttempt: Promise<void>;
  /** Ends the connection and its subscribe loop. */
  close(): Promise<void>;
}

/**
 * `connectionName` names the dedicated connection (CLIENT SETNAME), so it can be told apart in
 * CLIENT LIST.
 */
export function createSubscriptions(client: Redis, channelName: string, connectionName: string): Subscriptions {
  const listeners = new Set<() => void>();
  let channel: Channel | undefined;

  function notify(): void {
    for (const listener of [...listeners]) {
      try {
        listener();
      } catch {
        // A throwing listener must not keep the others from hearing; polling still runs.
      }
    }
  }

  function open(): Channel {
    // Reconnects on its own (ioredis retry strategy) and subscribes again (autoResubscribe).
    const connection = dedicatedConnection(client, connectionName);
    // Errors surface as failed SUBSCRIBEs below; without a listener ioredis prints each reconnect.
    connection.on('error', () => {});
    connection.on('message', (name: string) => {
      if (name === channelName) notify();
    });
    let closed = false;
    // Read through a call: close() sets it while the loop awaits, which narrowing cannot see.
    const isClosed = () => closed;
    let settle!: (refusal?: Error) => void;
    const firstAttempt = new Promise<void>((resolve, reject) => {
      settle = (refusal) => (refusal ? reject(refusal) : resolve());
    });
    const loop = (async () => {
      while (!isClosed()) {
        try {
          await connection.subscribe(channelName);
          settle();
          notify();
          // Each later `ready` is a reconnection, after which ioredis subscribes again.
          connection.on('ready', notify);
          return;
        } catch (err) {
          // A refusal is the server's answer, which trying again would not change.
          if ((err as Error).name === 'ReplyError') {
            connection.disconnect();
            settle(err as Error);
            return;
          }
          settle();
          if (!isClosed()) await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
        }
      }
      settle();
    })();
    return {
      firstAttempt,
      async close() {
        closed = true;
        connection.disconnect();
        // A SUBSCRIBE held while the connection was never made is never answered: ioredis drops
        // its reconnection on disconnect() without failing the commands it holds. The loop ends
        // at once otherwise; the connection is closed either way.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([loop, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
        clearTimeout(timer);
      },
    };
  }

  async function unsubscribe(listener: () => void): Promise<void> {
    if (!listeners.delete(listener) || listeners.size > 0 || !channel) return;
    const current = channel;
    channel = undefined;
    await current.close();
  }

  return {
    async subscribe(listener) {
      // A listener subscribed twice is called once per message and needs its own unsubscribe.
      const own = () => listener();
      listeners.add(own);
      const joining = channel !== undefined;
      const current = (channel ??= open());
      try {
        await current.firstAttempt;
      } catch (err) {
        listeners.delete(own);
        // Refused: the next subscriber asks again, on a new connection.
        if (channel === current) channel = undefined;
        throw err;
      }
      // Called once subscribed, as the first listeners were when the subscription began.
      if (joining) own();
      return () => unsubscribe(own);
    },
    async closeAll() {
      listeners.clear();
      const current = channel;
      channel = undefined;
      await current?.close();
    },
  };
}
