/**
 * What the operations layer asks of telemetry (the `telemetry` option), and the version that
 * does nothing. The OpenTelemetry version is otel.ts; config.ts picks one per queue. Callers
 * never ask which they hold: with telemetry off each call returns at once and allocates nothing.
 */
import type { AddJobsResult, ClaimedJob, NewJob } from '../backend.js';
import type { RunOutcome } from '../job-runner.js';

/** @internal The telemetry of one queue. */
export interface Telemetry {
  /**
   * Runs `add` (one backend call adding `jobs`) under a PRODUCER span, and writes that span's
   * trace context into each job first when the span is recorded. `batch`: the call is addJobs.
   */
  traceAdd(jobs: NewJob[], batch: boolean, add: () => Promise<AddJobsResult>): Promise<AddJobsResult>;
  /** Counts jobs a call really inserted (the ones `job:added` is emitted for). */
  added(jobs: readonly { jobId: number; jobType: string }[]): void;
  /** Runs a processor's claim under a CLIENT span. */
  traceClaim(workerId: string, claim: () => Promise<ClaimedJob[]>): Promise<ClaimedJob[]>;
  /** Starts the run of a claimed job: its CONSUMER span and pickup latency. */
  startRun(job: ClaimedJob, workerId: string): RunTelemetry;
  /** Counts a completion the store recorded. */
  completed(job: { jobType: string }): void;
  /** Counts a failure the store recorded. */
  failed(job: { jobType: string }, error: Error, willRetry: boolean): void;
}

/** @internal One run of a handler. */
export interface RunTelemetry {
  /** Runs the handler with the run's span as the active span; measures its duration. */
  within<T>(run: () => Promise<T>): Promise<T>;
  /**
   * Writes the run's outcome (`write`: the store call completing or failing the job) under a
   * CLIENT span `complete <type>` or `fail <type>`, a child of the run's span.
   */
  settle<T>(operation: 'complete' | 'fail', write: () => Promise<T>): Promise<T>;
  /** Records how the run ended, once its outcome is written (or given up), and ends the span. */
  end(outcome: RunOutcome): void;
}

const NO_RUN: RunTelemetry = {
  within: (run) => run(),
  settle: (_operation, write) => write(),
  end: () => undefined,
};

/** @internal Telemetry off: `telemetry: false`, or `@opentelemetry/api` not installed. */
export const NO_TELEMETRY: Telemetry = {
  traceAdd: (_jobs, _batch, add) => add(),
  added: () => undefined,
  traceClaim: (_workerId, claim) => claim(),
  startRun: () => NO_RUN,
  completed: () => undefined,
  failed: () => undefined,
};

export { NO_RUN };
