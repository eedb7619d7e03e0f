/** The public API of queuedev. Anything not re-exported here is internal. */
export { initJobQueue, batchDepRef, JobQueue } from './queue.js';
export { createPool } from './backends/postgres/pool.js';
export { migrate, type MigrateOptions, type MigrationRun } from './backends/postgres/migrate.js';
export { systemClock, ManualClock } from './clock.js';
export {
  QueueError,
  ConfigError,
  ValidationError,
  DependencyError,
  UnsupportedOnBackendError,
  NotFoundError,
  JobStatusError,
  HandlerSerializationError,
  JobTimeoutError,
  NoHandlerError,
  WaitSignal,
  JobLostError,
  StoreRejectedError,
  StoreUnavailableError,
  StoreResetError,
  EvictionPolicyError,
  NotMigratedError,
  QueueClosedError,
  DataDirLockedError,
  type QueueErrorCode,
  type StoreUnavailableReason,
} from './errors.js';
export type { QueueEventMap, QueueEventName, QueueEventListener } from './events.js';
export type { Processor, ProcessorStats } from './processor.js';
export type { CloseOptions } from './queue-lifecycle.js';
export type { JobHandler, JobHandlers, ProcessorOptions } from './processor-options.js';
export type { JobContext, TimeoutCallback } from './handler-context.js';
export type { WaitDuration } from './duration.js';
export {
  registerQueueDepthGauge,
  type QueueDepthMeter,
  type QueueDepthReader,
  type QueueDepthSource,
} from './telemetry/queue-depth.js';
export type { Supervisor, SupervisorOptions, SupervisorRunResult } from './supervisor.js';
export {
  validateHandlerSerializable,
  testHandlerSerialization,
  type SerializationCheck,
} from './forced-timeout/serializable.js';
export * from './types.js';
