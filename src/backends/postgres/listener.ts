/**
 * Wake-ups (issue 3): LISTEN on ONE dedicated connection per queue, shared by every subscriber.
 * A pool connection would be returned to the pool and lose its LISTEN, so this is a separate
 * pg.Client built from the same connection settings. When the connection drops it reconnects
 * with backoff and wakes the subscribers once, since notifications sent meanwhile were lost
 * (the processors' polling covers the gap anyway).
 */
import type { Client, ClientConfig } from 'pg';
import { quoteIdent } from '../../config.js';
import { loadDriver } from '../../load-driver.js';

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

export class JobAvailableListener {
  private readonly listeners = new Set<(jobId?: number) => void>();
  private client: Client | undefined;
  private connecting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = FIRST_RETRY_MS;

  constructor(
    private readonly clientConfig: () => ClientConfig,
    private readonly channel: string,
    private readonly log: (message: string) => void,
  ) {}

  /** Adds a listener; the first one opens the connection. Resolves once LISTEN is active (or failed, retrying). */
  async subscribe(listener: (jobId?: number) => void): Promise<() => Promise<void>> {
    this.listeners.add(listener);
    if (this.listeners.size === 1) await this.connect();
    else await this.connecting;
    let done = false;
    return async () => {
      if (done) return;
      done = true;
      this.listeners.delete(listener);
      if (this.listeners.size === 0) await this.stop();
    };
  }

  /** Drops every listener and closes the connection. */
  async close(): Promise<void> {
    this.listeners.clear();
    await this.stop();
  }

  private connect(): Promise<void> {
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<void> {
    const pg = loadDriver('pg');
    const client = new pg.Client(this.clientConfig());
    client.on('notification', (message) => {
      // The payload is the id of a single added job, or empty.
      if (message.channel === this.channel) this.wake(Number(message.payload) || undefined);
    });
    // 'error' without a handler would crash the process; both events mean the connection is gone.
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${quoteChannel(this.channel)}`);
    } catch (err) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      this.lost(client, err as Error);
      return;
    }
    if (this.listeners.size === 0) {
      // Everyone unsubscribed while we were connecting.
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
  }

  private lost(client: Client, err?: Error): void {
    if (this.client === client) this.client = undefined;
    if (this.listeners.size === 0 || this.retryTimer) return;
    this.log(`job wake-up connection lost${err ? `: ${err.message}` : ''}; reconnecting in ${this.retryMs} ms`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect().then(() => {
        if (this.client) this.wake();
      });
    }, this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }

  private async stop(): Promise<void> {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    if (client && this.listeners.size === 0) {
      client.removeAllListeners('end');
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
    }
  }

  private wake(jobId?: number): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(jobId);
      } catch (err) {
        this.log(`a job wake-up listener threw: ${(err as Error).message}`);
      }
    }
  }
}

/** LISTEN takes an identifier; the channel is `queuedev_<schema>` or a hash, both identifiers. */
function quoteChannel(channel: string): string {
  return quoteIdent(channel);
}

/** The wake-up operation of the Backend: subscribers share the context's one listener. */
export const wakeOperations = {
  subscribeJobAvailable: (ctx: { listener: JobAvailableListener }, listener: (jobId?: number) => void) =>
    ctx.listener.subscribe(listener),
};
