/**
 * Real-time hooks (SPEC §4.10, §6.2). Emission is synchronous and happens after the storage
 * operation completed. Job hooks are emitted only by the operations layer (src/operations/
 * hooks.ts subclasses this emitter); everyone else can subscribe and report errors.
 *
 * Errors no call returns (a processor's, a supervisor's, the store's own, a listener's) are told
 * in one place, reportError: to the reporter's `onError` and the `error` listeners, or, when
 * there is neither, to the queue's log. Unlike Node's EventEmitter, an `error` with no listener
 * never throws, and a listener that throws never changes the outcome of the operation that
 * emitted: its error is reported in turn (from an `error` listener, to the log).
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

/** How reportError tells an error besides the `error` listeners. */
export interface ErrorReport {
  /** The reporter's own callback (a processor's or supervisor's `onError` option). */
  onError?: ((error: Error) => void) | undefined;
  /** Who reports, leading the log lines: `processor <workerId>`, `supervisor`. */
  source?: string;
  /** The level of the log line written when nobody else hears the error. @default 'error' */
  level?: 'warn' | 'error';
  /**
   * False: no log line even when nobody else hears the error, because it is not news: the
   * caller gets it thrown, or a line about its cause was written already.
   * @default true
   */
  logged?: boolean;
}
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

  /**
   * Tells an error no call returns: to `report.onError` and to the `error` listeners, which
   * both hear it when both exist. When neither does, the queue's log (its `logger`, else the
   * console) gets one line instead, so that no error passes in silence and none is told twice.
   * Never throws. A failure that repeats every interval is held back before it gets here
   * (RepeatedErrors).
   */
  reportError(error: Error, report: ErrorReport = {}): void {
    const { onError, source, level = 'error', logged = true } = report;
    const lead = source === undefined ? '' : `${source}: `;
    if (onError) {
      try {
        onError(error);
      } catch (err) {
        this.log.error(`${lead}onError threw: ${describeThrown(err)}`, { error: toError(err) });
      }
    }
    if (this.listenerCount('error') > 0) this.emit('error', error);
    else if (!onError && logged) this.log[level](`${lead}${describeThrown(error)}`, { error });
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
          this.reportError(toError(err, `a "${event}" listener threw`));
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
