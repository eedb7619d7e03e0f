/**
 * Every error class of queuedev. Each carries a stable `code`; messages name the field,
 * the rule and the value received.
 */

export type QueueErrorCode =
  | 'CONFIG_INVALID'
  | 'VALIDATION_FAILED'
  | 'DEPENDENCY_INVALID'
  | 'UNSUPPORTED_ON_BACKEND'
  | 'NOT_FOUND'
  | 'HANDLER_NOT_SERIALIZABLE'
  | 'JOB_TIMEOUT'
  | 'NO_HANDLER'
  | 'JOB_WAITING'
  | 'JOB_LOST'
  | 'QUEUE_CLOSED';

export class QueueError extends Error {
  readonly code: QueueErrorCode;
  constructor(code: QueueErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Invalid queue, processor, supervisor or dashboard configuration; thrown at construction. */
export class ConfigError extends QueueError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONFIG_INVALID', message, options);
  }
}

/** Invalid input to an operation; nothing was written. */
export class ValidationError extends QueueError {
  /** The offending field, as a path such as `jobs[2].maxAttempts`. */
  readonly field: string;
  constructor(field: string, message: string) {
    super('VALIDATION_FAILED', message);
    this.field = field;
  }
}

/** `dependsOn` names an unknown job, the job itself, a finished job, or makes a cycle. */
export class DependencyError extends QueueError {
  constructor(message: string) {
    super('DEPENDENCY_INVALID', message);
  }
}

/** The operation exists on the other backend only (`db`, `getPool`, `getRedisClient`). */
export class UnsupportedOnBackendError extends QueueError {
  constructor(message: string) {
    super('UNSUPPORTED_ON_BACKEND', message);
  }
}

export class NotFoundError extends QueueError {
  constructor(message: string) {
    super('NOT_FOUND', message);
  }
}

/** A `forceKillOnTimeout` handler that cannot run in a worker thread. */
export class HandlerSerializationError extends QueueError {
  constructor(message: string) {
    super('HANDLER_NOT_SERIALIZABLE', message);
  }
}

/** The handler ran past its `timeoutMs`; the abort signal's reason. */
export class JobTimeoutError extends QueueError {
  constructor(message: string) {
    super('JOB_TIMEOUT', message);
  }
}

/** No handler is registered for a claimed job's type. */
export class NoHandlerError extends QueueError {
  constructor(message: string) {
    super('NO_HANDLER', message);
  }
}

/**
 * Thrown inside a handler by `ctx.waitFor`, `ctx.waitUntil` and `ctx.waitForToken` once the job
 * is `waiting`: it ends this run of the handler, which runs again from the top on resume.
 * Let it propagate (rethrow it if you catch errors around a wait).
 */
export class WaitSignal extends QueueError {
  constructor(message: string) {
    super('JOB_WAITING', message);
  }
}

/**
 * The job is no longer processing and locked by this worker (fencing): it was reclaimed, or
 * otherwise taken away while its handler ran. Thrown by a handler's fenced write, and the abort
 * signal's reason when the processor gives up a run whose job it lost.
 */
export class JobLostError extends QueueError {
  constructor(message: string) {
    super('JOB_LOST', message);
  }
}

/** The queue was closed (`queue.close()`); it runs no more operations. */
export class QueueClosedError extends QueueError {
  constructor(message: string) {
    super('QUEUE_CLOSED', message);
  }
}

/** Renders a received value for an error message: `0 (number)`, `"x" (string)`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'string') return `${JSON.stringify(value.length > 60 ? value.slice(0, 57) + '...' : value)} (string)`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${String(value)} (${typeof value})`;
  }
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (value instanceof Date) return `Date ${Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString()}`;
  return typeof value === 'function' ? 'a function' : `${typeof value}`;
}
