/**
 * What every operation needs: the store, the clock, the hooks and the queue's log. One context
 * per queue, shared by all operation families; tracing and metrics attach here.
 */
import type { Backend } from '../backend.js';
import type { Clock } from '../types.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { JobHooks } from './hooks.js';

/** @internal */
export interface OperationsContext {
  /** The queue's backend (refusing every call once the queue is closed). */
  backend: Backend;
  clock: Clock;
  hooks: JobHooks;
  /** Spans and metrics (the `telemetry` option); does nothing when off. */
  telemetry: Telemetry;
  /** The queue's verbose log; a no-op unless `verbose` is set. */
  log(message: string): void;
}
