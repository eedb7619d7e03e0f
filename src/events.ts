/**
 * Real-time hooks (SPEC §4.10, §6.2). Emission is synchronous and happens after the storage
 * operation completed. Job hooks are emitted only by the operations layer (src/operations/
 * hooks.ts subclasses this emitter); everyone else can subscribe and report errors. Unlike Node's EventEmitter, an `error` with no listener never throws,
 * and a listener that throws never changes the outcome of the operation that emitted: its
 * error is reported as an `error` event (or, from an `error` listener, on the console).
 */
import { describeThrown, toError } from './failure.js';
import { Log } from './log.js';

/** Re-exported for the modules that import it from here; defined in failure.ts. */
export { toError };

export interface QueueEventMap {
  'job:added': { jobId: number; jobType: string };
  'job:processing': { jobId: number; jobType: string };
  'job:completed': { jobId: number; jobType: string };
  'job:failed': { jobId: number; jobType: string; error: Error; willRetry: boolean };
  'job:cancelled': { jobId: number };
  'job:retried': { jobId: number };
  'job:waiting': { jobId: number; jobType: string };
  'job:progress': { jobId: number; progress: number };
  'job:output': { jobId: number; output: unknown };
  error: Error;
}

export type QueueEventName = keyof QueueEventMap;
export type QueueEventListener<E extends QueueEventName> = (payload: QueueEventMap[E]) => void;

type AnyListener = (payload: never) => void;

export class QueueEvents {
  private readonly listeners = new Map<QueueEventName, { fn: AnyListener; once: boolean }[]>();

  /** @param log where a throwing `error` listener is written (the queue's log). */
  constructor(private readonly log: Log = new Log(undefined, false)) {}

  on<E extends QueueEventName>(event: E, listener: QueueEventListener<E>): void {
    this.add(event, listener, false);
  }

  once<E extends QueueEventName>(event: E, listener: QueueEventListener<E>): void {
    this.add(event, listener, true);
  }

  off<E extends QueueEventName>(event: E, listener: QueueEventListener<E>): void {
    const list = this.listeners.get(event);
    if (!list) return;
    const i = list.findIndex((l) => l.fn === listener);
    if (i >= 0) list.splice(i, 1);
  }

  removeAllListeners(event?: QueueEventName): void {
    if (event === undefined) this.listeners.clear();
    else this.listeners.delete(event);
  }

  listenerCount(event: QueueEventName): number {
    return this.listeners.get(event)?.length ?? 0;
  }

  /** Sends `error` to its listeners; never throws, even when nobody listens. */
  emitError(error: Error): void {
    this.emit('error', error);
  }

  /**
   * Protected so that a job hook cannot be emitted from just anywhere: the operation that
   * changed the job emits it (src/operations/hooks.ts), whoever called the operation.
   */
  protected emit<E extends QueueEventName>(event: E, payload: QueueEventMap[E]): void {
    const list = this.listeners.get(event);
    if (!list || list.length === 0) return;
    for (const entry of [...list]) {
      if (entry.once) this.off(event, entry.fn as QueueEventListener<E>);
      try {
        (entry.fn as QueueEventListener<E>)(payload);
      } catch (err) {
        if (event === 'error') {
          this.log.error(`an error listener threw: ${describeThrown(err)}`, { error: toError(err) });
        } else {
          this.emit('error', toError(err, `a "${event}" listener threw`));
        }
      }
    }
  }

  private add(event: QueueEventName, fn: AnyListener, once: boolean): void {
    if (typeof fn !== 'function') {
      throw new TypeError(`Expected the listener for "${event}" to be a function, got ${typeof fn}`);
    }
    const list = this.listeners.get(event) ?? [];
    list.push({ fn, once });
    this.listeners.set(event, list);
  }
}
