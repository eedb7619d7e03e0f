/**
 * Names of the spans' and metrics' attributes and instruments: the OpenTelemetry semantic
 * conventions for messaging where they have one, `queuedev.*` for what is the library's own.
 */

/** The instrumentation scope of the tracer and meter. */
export const SCOPE_NAME = 'queuedev';

/** `messaging.system` of every span and metric. */
export const MESSAGING_SYSTEM_VALUE = 'queuedev';

export const ATTR = {
  messagingSystem: 'messaging.system',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  destinationName: 'messaging.destination.name',
  messageId: 'messaging.message.id',
  batchMessageCount: 'messaging.batch.message_count',
  clientId: 'messaging.client.id',
  errorType: 'error.type',
  /** 'postgres' or 'redis'. */
  backend: 'queuedev.backend',
  /** The attempt a run is (1 for the first). */
  attempt: 'queuedev.job.attempt',
  /** How a run ended: completed, failed, waiting or lost. */
  outcome: 'queuedev.job.outcome',
  /** Why a run failed: handler_error, timeout or no_handler. */
  failureReason: 'queuedev.job.failure_reason',
  /** Whether a failed job will be retried. */
  willRetry: 'queuedev.job.will_retry',
  /** A job status, on the queue depth gauge. */
  status: 'queuedev.job.status',
} as const;

export const METRIC = {
  added: 'queuedev.jobs.added',
  completed: 'queuedev.jobs.completed',
  failed: 'queuedev.jobs.failed',
  processDuration: 'messaging.process.duration',
  pickupLatency: 'queuedev.job.pickup_latency',
  queueDepth: 'queuedev.queue.depth',
} as const;

/** Bucket bounds (seconds) the semantic conventions advise for messaging durations. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** Pickup latency spans from milliseconds to however long a backlog waits: wider buckets. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

/**
 * error.type of a failure: the error's class name (`JobTimeoutError`, `TypeError`, a handler's
 * own class), a low-cardinality value as the conventions ask, never its message.
 */
export function errorType(error: Error): string {
  try {
    if (typeof error.name === 'string' && error.name && error.name !== 'Error') return error.name;
    const ctor = (error as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof ctor === 'string' && ctor.length > 0 ? ctor : 'Error';
  } catch {
    return 'Error'; // a getter that throws: the class cannot be told
  }
}
