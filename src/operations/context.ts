/**
 * What every operation needs: the store, the clock, the hooks and the queue's log. One context
 * per queue, shared by all operation families; tracing and metrics attach here.
 */
import type { Backend } from '../backend.js';
import type { InputLimits } from '../input-limits.js';
import type { Log } from '../log.js';
import type { Clock } from '../types.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { JobHooks } from './hooks.js';

/** @internal */
export interface OperationsContext {
  /** The queue's backend (refusing every call once the queue is closed). */
  backend: Backend;
  clock: Clock;
  hooks: JobHooks;
  /** The queue's log (`logger`, debug lines only with `verbose`). */
  log: Log;
  /** Spans and metrics (the `telemetry` option); does nothing when off. */
  telemetry: Telemetry;
  /** Bounds on one call's input (the `maxPayloadBytes` option). */
  limits: InputLimits;
}
