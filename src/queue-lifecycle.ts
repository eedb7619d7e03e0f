/**
 * What a queue created and how it ends (`queue.close()`): the processors and supervisors it
 * made are stopped and drained with a bounded wait, then the store connections close, and from
 * then on every operation fails with a QueueClosedError instead of a driver error.
 */
import type { Backend } from './backend.js';
import { checkNumber, checkObject } from './checks.js';
import { QueueClosedError, ValidationError } from './errors.js';
import type { Processor } from './processor.js';
import type { Supervisor } from './supervisor.js';

export interface CloseOptions {
  /**
   * Longest wait, in milliseconds, for running handlers to end and their outcomes to be
   * recorded before the connections close. A handler still running then is left to the
   * supervisor's reclaim; jobs claimed ahead and not started go back to pending at once.
   * @default 30000
   * @example await queue.close({ timeoutMs: 5000 })
   */
  timeoutMs?: number | undefined;
}

const DEFAULT_CLOSE_TIMEOUT_MS = 30_000;
/** Backend methods that return a value rather than a promise. */
const SYNC_METHODS = new Set<string | symbol>(['getPool', 'getRedisClient']);

export class QueueLifecycle {
  /**
   * Weak: a serverless route may create a processor per request. One that is running is kept
   * alive by its own timers and handlers; one that was dropped idle has nothing to drain.
   */
  private readonly runners = new Set<WeakRef<Processor | Supervisor>>();
  /** Prune collected entries when the set grows past this. */
  private pruneAt = 64;
  private state: 'open' | 'closing' | 'closed' = 'open';
  private closing: Promise<void> | undefined;
  /** The backend the queue and everything it creates use: refuses every call once closed. */
  readonly backend: Backend;

  constructor(private readonly inner: Backend) {
    this.backend = new Proxy(inner, {
      get: (target, prop, receiver) => {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function' || prop === 'close') return value;
        return (...args: unknown[]) => {
          if (this.state === 'closed') {
            const error = this.closedError(`the store call ${String(prop)}`);
            if (SYNC_METHODS.has(prop)) throw error;
            return Promise.reject(error);
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }

  /** Remembers a processor or supervisor, for close() to stop. Refused once closing began. */
  adopt<T extends Processor | Supervisor>(create: () => T, what: string): T {
    if (this.state !== 'open') throw this.closedError(what);
    const runner = create();
    if (this.runners.size >= this.pruneAt) {
      for (const ref of this.runners) if (!ref.deref()) this.runners.delete(ref);
      this.pruneAt = Math.max(64, this.runners.size * 2);
    }
    this.runners.add(new WeakRef(runner));
    return runner;
  }

  close(options?: CloseOptions): Promise<void> {
    const timeoutMs = closeTimeout(options);
    this.closing ??= this.shutdown(timeoutMs);
    return this.closing;
  }

  private async shutdown(timeoutMs: number): Promise<void> {
    this.state = 'closing';
    // In parallel, each bounded by the same timeout: the whole drain takes at most timeoutMs.
    const live = [...this.runners].flatMap((ref) => ref.deref() ?? []);
    await Promise.all(live.map((runner) => runner.stopAndDrain(timeoutMs)));
    this.runners.clear();
    this.state = 'closed';
    await this.inner.close();
  }

  /** True once close() has finished: every call is refused from then on. */
  get closed(): boolean {
    return this.state === 'closed';
  }

  /**
   * The error for `call` after close(). The queue's own methods name themselves
   * (`queue.addJob()`); a processor's or supervisor's store call names the store operation.
   */
  closedError(call: string): QueueClosedError {
    return new QueueClosedError(`The queue is closed: ${call}() cannot run after queue.close()`);
  }
}

function closeTimeout(options: CloseOptions | undefined): number {
  if (options === undefined) return DEFAULT_CLOSE_TIMEOUT_MS;
  const { timeoutMs = DEFAULT_CLOSE_TIMEOUT_MS } = checkObject(
    ValidationError,
    'options',
    options,
    'an object { timeoutMs? }',
  );
  return checkNumber(ValidationError, 'timeoutMs', timeoutMs, 0, Infinity, 'a finite number of milliseconds >= 0');
}
