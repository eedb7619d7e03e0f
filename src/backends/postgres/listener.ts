/**
 * Wake-ups (issue 3): LISTEN on ONE dedicated connection per queue, shared by every subscriber.
 * How that connection is opened is the driver's (a WakeSource): on a server, a pg.Client apart
 * from the pool, since a pool connection would be returned to the pool and lose its LISTEN
 * (pool.ts); on PGlite, the instance's own listen() (pglite.ts). This class holds what both
 * share: when the connection drops it reconnects with backoff and wakes the subscribers once,
 * since notifications sent meanwhile were lost (the processors' polling covers the gap anyway).
 */
import { quoteIdent } from '../../config.js';
import { describeThrown } from '../../failure.js';

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 30_000;

/** What a WakeSource is told: the channel, where its payloads go and how it reports a drop. */
export interface WakeSubscription {
  /** The channel, as NOTIFY names it. */
  channel: string;
  /** The channel, quoted for LISTEN (`queuedev_<schema>` or a hash, both identifiers). */
  quotedChannel: string;
  /** Called with each notification's payload on the channel. */
  notify: (payload: string) => void;
  /** Called when the connection is gone after it was opened (or while opening). */
  lost: (err?: Error) => void;
}

/** An open wake-up connection. */
export interface WakeConnection {
  close(): Promise<void>;
}

/** Opens a wake-up connection that has run LISTEN; rejects when it cannot. */
export type WakeSource = (subscription: WakeSubscription) => Promise<WakeConnection>;

export class JobAvailableListener {
  private readonly listeners = new Set<(jobId?: number) => void>();
  /** The open connection, with the token its `lost` reports carry. */
  private current: { token: object; connection: WakeConnection } | undefined;
  private connecting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = FIRST_RETRY_MS;

  constructor(
    private readonly source: WakeSource,
    private readonly channel: string,
    private readonly log: (message: string) => void,
  ) {}

  /**
   * Adds a listener; the first one opens the connection. Resolves once LISTEN is active (or
   * failed, retrying). A notification sent before LISTEN was active is lost, so once it is the
   * listener is called as if one had come: a job added while the subscription was being made is
   * looked for then, not a poll interval later (as after a reconnection, and as on Redis).
   */
  async subscribe(listener: (jobId?: number) => void): Promise<() => Promise<void>> {
    this.listeners.add(listener);
    if (this.listeners.size === 1) await this.connect();
    else await this.connecting;
    if (this.current && this.listeners.has(listener)) this.call(listener);
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
    const token = {};
    let connection: WakeConnection;
    try {
      connection = await this.source({
        channel: this.channel,
        quotedChannel: quoteIdent(this.channel),
        // The payload is the id of a single added job, or empty.
        notify: (payload) => this.wake(Number(payload) || undefined),
        lost: (err) => this.lost(token, err),
      });
    } catch (err) {
      this.lost(token, err as Error);
      return;
    }
    if (this.listeners.size === 0) {
      // Everyone unsubscribed while we were connecting.
      await connection.close();
      return;
    }
    this.current = { token, connection };
    this.retryMs = FIRST_RETRY_MS;
  }

  private lost(token: object, err?: Error): void {
    if (this.current?.token === token) this.current = undefined;
    if (this.listeners.size === 0 || this.retryTimer) return;
    this.log(`job wake-up connection lost${err ? `: ${err.message}` : ''}; reconnecting in ${this.retryMs} ms`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect().then(() => {
        if (this.current) this.wake();
      });
    }, this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }

  private async stop(): Promise<void> {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.connecting;
    const current = this.current;
    this.current = undefined;
    if (current && this.listeners.size === 0) await current.connection.close();
  }

  private wake(jobId?: number): void {
    for (const listener of [...this.listeners]) this.call(listener, jobId);
  }

  private call(listener: (jobId?: number) => void, jobId?: number): void {
    try {
      listener(jobId);
    } catch (err) {
      this.log(`a job wake-up listener threw: ${describeThrown(err)}`);
    }
  }
}

/** The wake-up operation of the Backend: subscribers share the context's one listener. */
export const wakeOperations = {
  subscribeJobAvailable: (ctx: { listener: JobAvailableListener }, listener: (jobId?: number) => void) =>
    ctx.listener.subscribe(listener),
};
