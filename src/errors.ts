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
  | 'STORE_REJECTED'
  | 'STORE_UNAVAILABLE'
  | 'STORE_RESET'
  | 'EVICTION_POLICY'
  | 'SCHEMA_NOT_MIGRATED'
  | 'QUEUE_CLOSED'
  | 'JOB_STATUS_CONFLICT'
  | 'DATA_DIR_LOCKED';

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

/**
 * The job's status does not allow the operation (deleteJob on a job that has not finished);
 * nothing was changed. `status` is the status the job was found in.
 */
export class JobStatusError extends QueueError {
  readonly jobId: number;
  readonly status: string;
  constructor(jobId: number, status: string, message: string) {
    super('JOB_STATUS_CONFLICT', message);
    this.jobId = jobId;
    this.status = status;
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

/**
 * The store refused the values of one write (on PostgreSQL: a data exception or a constraint
 * violation, SQLSTATE class 22 or 23), as opposed to being unreachable. Repeating the same
 * write cannot succeed. `cause` is the store's own error.
 */
export class StoreRejectedError extends QueueError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('STORE_REJECTED', message, options);
  }
}

/**
 * Why the store could not serve a call: `connection` (unreachable, or the connection dropped),
 * `server` (the server refuses work for now: shutting down, starting, read-only replica, too
 * many connections), `authentication` (the store refused the credentials), `database-missing`
 * (PostgreSQL: the database the connection settings name does not exist), `closed` (the
 * queue's own pool or client was already closed).
 */
export type StoreUnavailableReason = 'connection' | 'server' | 'authentication' | 'database-missing' | 'closed';

/**
 * The store (PostgreSQL or Redis) could not be reached or refused to serve the call. Nothing is
 * known to have been written. `cause` is the driver's error with credentials removed.
 * Retry later for `connection` and `server`; fix the configuration for `authentication`, and
 * create the database (or fix its name) for `database-missing`.
 */
export class StoreUnavailableError extends QueueError {
  readonly reason: StoreUnavailableReason;
  constructor(reason: StoreUnavailableReason, message: string, options?: { cause?: unknown }) {
    super('STORE_UNAVAILABLE', message, options);
    this.reason = reason;
  }
}

/**
 * The Redis store the queue was using was replaced by an empty or different one (a restart
 * without persistence, FLUSHDB, deleted keys): jobs and schedules stored before are gone.
 * Reported on the `error` event (with no listener, to the queue's log at level error); the queue
 * carries on with fresh ids above every id it had seen.
 */
export class StoreResetError extends QueueError {
  /** The store id the queue had seen, and the one found (null when the identity key was gone). */
  readonly expectedStoreId: string;
  readonly foundStoreId: string | null;
  constructor(message: string, ids: { expected: string; found: string | null }) {
    super('STORE_RESET', message);
    this.expectedStoreId = ids.expected;
    this.foundStoreId = ids.found;
  }
}

/**
 * A Redis server under the queue may evict keys under memory pressure (its `maxmemory-policy`
 * is not `noeviction`), which deletes jobs silently. Reported once on the `error` event (with no
 * listener, to the queue's log at level warn) when the queue first uses the store; never thrown
 * by a call.
 */
export class EvictionPolicyError extends QueueError {
  /** The policy of each evicting server, by `host:port` (each master of a Redis Cluster is checked). */
  readonly policies: Record<string, string>;
  constructor(message: string, policies: Record<string, string>) {
    super('EVICTION_POLICY', message);
    this.policies = policies;
  }
}

/** The queue's PostgreSQL tables do not exist in its schema: the migrations were not run. */
export class NotMigratedError extends QueueError {
  readonly schema: string;
  constructor(schema: string, message: string, options?: { cause?: unknown }) {
    super('SCHEMA_NOT_MIGRATED', message, options);
    this.schema = schema;
  }
}

/** The queue was closed (`queue.close()`); it runs no more operations. */
export class QueueClosedError extends QueueError {
  constructor(message: string) {
    super('QUEUE_CLOSED', message);
  }
}

/**
 * A PGlite data directory is open in another process (or, through another instance, in this
 * one): two PostgreSQL instances on one directory lose data, so the second opener is refused.
 * Thrown by `initJobQueue` and rejected by `migrate()`; nothing was opened or written.
 */
export class DataDirLockedError extends QueueError {
  /** The data directory, as an absolute path. */
  readonly dataDir: string;
  /** The lock file naming the holder; delete it only when that process has stopped. */
  readonly lockFile: string;
  /** The process holding the directory, and the machine it runs on. */
  readonly pid: number;
  readonly hostname: string;
  constructor(message: string, holder: { dataDir: string; lockFile: string; pid: number; hostname: string }) {
    super('DATA_DIR_LOCKED', message);
    this.dataDir = holder.dataDir;
    this.lockFile = holder.lockFile;
    this.pid = holder.pid;
    this.hostname = holder.hostname;
  }
}

/** Renders a received value for an error message: `0 (number)`, `"x" (string)`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'string')
    return `${JSON.stringify(value.length > 60 ? value.slice(0, 57) + '...' : value)} (string)`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${String(value)} (${typeof value})`;
  }
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (value instanceof Date) return `Date ${Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString()}`;
  return typeof value === 'function' ? 'a function' : typeof value;
}
