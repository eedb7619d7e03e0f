/**
 * Telemetry through the OpenTelemetry API (loaded only where it is installed, see config.ts).
 *
 * Spans, named `<operation> <job type>` as the messaging conventions ask:
 * - `add <type>` (PRODUCER): one per addJob, one per addJobs (`messaging.batch.message_count`).
 *   Its trace context is stored with each job it adds.
 * - `claim` (CLIENT): one per processor claim, with the number of jobs claimed.
 * - `process <type>` (CONSUMER): one per handler run, a child of the context the processor runs
 *   in, LINKED to the `add` span stored with the job, and the active span while the handler
 *   runs. It ends once the run's outcome is written, and carries it: `queuedev.job.outcome`,
 *   and on failure the exception, `error.type` and an error status.
 *
 * Nothing is allocated per job until a tracer exists: with the global provider and no SDK
 * registered, no span is started and no trace context is written (TelemetryGuard.tracerSource).
 * Metrics are recorded only when the meter is not the API's no-op one (TelemetryGuard.meter).
 *
 * Every call into the API goes through the queue's TelemetryGuard (guard.ts): a span processor,
 * view or context manager that throws costs that span or measurement, never the operation.
 */
import type { Attributes, Context, Link, Meter, MeterProvider, Tracer, TracerProvider } from '@opentelemetry/api';
import type { AddJobsResult, ClaimedJob, NewJob } from '../backend.js';
import type { RunOutcome } from '../job-runner.js';
import type { Log } from '../log.js';
import type { Clock } from '../types.js';
import { GuardedInstrument, GuardedSpan, TelemetryGuard } from './guard.js';
import { ATTR, DURATION_BUCKETS, errorType, LATENCY_BUCKETS, MESSAGING_SYSTEM_VALUE, METRIC } from './names.js';
import { NO_RUN, type RunTelemetry, type Telemetry } from './telemetry.js';
import { parseTraceContext } from './trace-context.js';

type Api = typeof import('@opentelemetry/api');

/** @internal What otel.ts needs: the API module and the providers the queue uses. */
export interface OtelSettings {
  api: Api;
  tracerProvider: TracerProvider;
  meterProvider: MeterProvider;
  backend: 'postgres' | 'redis';
  clock: Clock;
  /** The queue's log: where a failing call into telemetry is reported. */
  log: Log;
  /** The instrumentation scope version (the package's). */
  version: string | undefined;
}

/** The queue's instruments; one whose creation failed is left out. */
interface Instruments {
  added?: GuardedInstrument;
  completed?: GuardedInstrument;
  failed?: GuardedInstrument;
  processDuration?: GuardedInstrument;
  pickupLatency?: GuardedInstrument;
}

/** The instruments, or undefined when there is no meter to make them with (no SDK registered). */
function instrumentsFor(guard: TelemetryGuard, meter: Meter | undefined): Instruments | undefined {
  if (!meter) return undefined;
  const jobs = { unit: '{job}', valueType: guard.api.ValueType.INT };
  const counter = (name: string, description: string) =>
    guard.instrument(meter, 'createCounter', name, { ...jobs, description });
  return {
    added: counter(METRIC.added, 'Jobs added to the queue'),
    completed: counter(METRIC.completed, 'Jobs whose run completed'),
    failed: counter(METRIC.failed, 'Failed runs recorded (retried or not)'),
    processDuration: guard.instrument(meter, 'createHistogram', METRIC.processDuration, {
      unit: 's',
      description: 'Duration of a handler run',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    pickupLatency: guard.instrument(meter, 'createHistogram', METRIC.pickupLatency, {
      unit: 's',
      description: 'Time from when a job was due (its runAt) to the start of its first run',
      advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
    }),
  };
}

/** @internal */
export class OtelTelemetry implements Telemetry {
  private readonly guard: TelemetryGuard;
  private readonly tracer: () => Tracer | undefined;
  private readonly metrics: Instruments | undefined;
  private readonly api: Api;
  private readonly clock: Clock;
  /** Attributes every span starts with. */
  private readonly common: Attributes;

  constructor(settings: OtelSettings) {
    this.api = settings.api;
    this.clock = settings.clock;
    this.guard = new TelemetryGuard(settings.api, settings.log);
    this.tracer = this.guard.tracerSource(settings.tracerProvider, settings.version);
    this.metrics = instrumentsFor(this.guard, this.guard.meter(settings.meterProvider, settings.version));
    this.common = { [ATTR.messagingSystem]: MESSAGING_SYSTEM_VALUE, [ATTR.backend]: settings.backend };
  }

  // Not async: without a tracer the call is the backend's own promise, with no wrapper around it.
  traceAdd(jobs: NewJob[], batch: boolean, add: () => Promise<AddJobsResult>): Promise<AddJobsResult> {
    const tracer = this.tracer();
    return tracer ? this.tracedAdd(tracer, jobs, batch, add) : add();
  }

  private tracedAdd(
    tracer: Tracer,
    jobs: NewJob[],
    batch: boolean,
    add: () => Promise<AddJobsResult>,
  ): Promise<AddJobsResult> {
    const { api, guard } = this;
    const jobType = commonJobType(jobs);
    const attributes: Attributes = {
      ...this.common,
      [ATTR.operationType]: 'send',
      [ATTR.operationName]: 'add',
    };
    if (jobType !== undefined) attributes[ATTR.destinationName] = jobType;
    if (batch) attributes[ATTR.batchMessageCount] = jobs.length;
    const parent = guard.active();
    const span = guard.startSpan(tracer, spanName('add', jobType), { kind: api.SpanKind.PRODUCER, attributes }, parent);
    if (!span) return add();
    // An add the sampler dropped stores nothing: its span is not exported, a link would lead nowhere.
    const traceContext = span.isRecording() ? span.traceContext() : undefined;
    if (traceContext !== undefined) for (const job of jobs) job.traceContext = traceContext;
    return this.inSpan(span, parent, add, (result) => {
      if (!batch && result.ids[0] !== undefined) span.setAttribute(ATTR.messageId, String(result.ids[0]));
    });
  }

  added(jobs: readonly { jobId: number; jobType: string }[]): void {
    const counter = this.metrics?.added;
    if (!counter || jobs.length === 0) return;
    const perType = new Map<string, number>();
    for (const { jobType } of jobs) perType.set(jobType, (perType.get(jobType) ?? 0) + 1);
    for (const [jobType, count] of perType) counter.record(count, this.metricAttributes(jobType));
  }

  traceClaim(workerId: string, claim: () => Promise<ClaimedJob[]>): Promise<ClaimedJob[]> {
    const tracer = this.tracer();
    return tracer ? this.tracedClaim(tracer, workerId, claim) : claim();
  }

  private tracedClaim(tracer: Tracer, workerId: string, claim: () => Promise<ClaimedJob[]>): Promise<ClaimedJob[]> {
    const { api, guard } = this;
    const attributes: Attributes = {
      ...this.common,
      [ATTR.operationType]: 'receive',
      [ATTR.operationName]: 'claim',
      [ATTR.clientId]: workerId,
    };
    const parent = guard.active();
    const span = guard.startSpan(tracer, 'claim', { kind: api.SpanKind.CLIENT, attributes }, parent);
    if (!span) return claim();
    return this.inSpan(span, parent, claim, (jobs) => span.setAttribute(ATTR.batchMessageCount, jobs.length));
  }

  startRun(job: ClaimedJob, workerId: string): RunTelemetry {
    const tracer = this.tracer();
    if (!tracer && !this.metrics) return NO_RUN;
    this.recordPickup(job);
    const span = tracer ? this.startRunSpan(tracer, job, workerId) : undefined;
    return new OtelRun(this.guard, this, job, span && tracer ? { span, tracer } : undefined);
  }

  completed(job: { jobType: string }): void {
    this.metrics?.completed?.record(1, this.metricAttributes(job.jobType));
  }

  failed(job: { jobType: string }, error: Error, willRetry: boolean): void {
    const counter = this.metrics?.failed;
    if (!counter) return;
    const attributes = this.metricAttributes(job.jobType);
    attributes[ATTR.errorType] = errorType(error);
    attributes[ATTR.willRetry] = willRetry;
    counter.record(1, attributes);
  }

  /** @internal For OtelRun: the run's duration, with error.type when it failed. */
  recordDuration(job: ClaimedJob, seconds: number, outcome: RunOutcome): void {
    const histogram = this.metrics?.processDuration;
    if (!histogram) return;
    const attributes = this.metricAttributes(job.jobType);
    attributes[ATTR.operationName] = 'process';
    if (outcome.status === 'failed' || outcome.status === 'lost') attributes[ATTR.errorType] = errorType(outcome.error);
    histogram.record(seconds, attributes);
  }

  /**
   * @internal For OtelRun: `write` (the store call recording the run's outcome) under a CLIENT
   * span that is a child of the run's span.
   */
  traceSettle<T>(
    traced: { tracer: Tracer; span: GuardedSpan },
    job: ClaimedJob,
    operation: 'complete' | 'fail',
    write: () => Promise<T>,
  ): Promise<T> {
    const { api, guard } = this;
    const attributes: Attributes = {
      ...this.common,
      [ATTR.operationType]: 'settle',
      [ATTR.operationName]: operation,
      [ATTR.destinationName]: job.jobType,
      [ATTR.messageId]: String(job.id),
    };
    const parent = guard.contextWith(guard.active(), traced.span);
    const span = guard.startSpan(
      traced.tracer,
      spanName(operation, job.jobType),
      { kind: api.SpanKind.CLIENT, attributes },
      parent,
    );
    return span ? this.inSpan(span, parent, write) : write();
  }

  /**
   * `operation` with `span` active, its failure recorded on the span, the span ended after it.
   * `done` records what the operation returned before the span ends.
   */
  private async inSpan<T>(
    span: GuardedSpan,
    parent: Context,
    operation: () => Promise<T>,
    done?: (result: T) => void,
  ): Promise<T> {
    try {
      const result = await this.guard.withSpan(parent, span, operation);
      done?.(result);
      return result;
    } catch (err) {
      span.recordError(err);
      throw err;
    } finally {
      span.end();
    }
  }

  private startRunSpan(tracer: Tracer, job: ClaimedJob, workerId: string): GuardedSpan | undefined {
    const { api, guard } = this;
    const links: Link[] = [];
    const stored = job.traceContext;
    const producer =
      stored === undefined
        ? undefined
        : guard.run(
            'reading the stored trace context',
            () => parseTraceContext(stored, api.createTraceState),
            undefined,
          );
    if (producer) links.push({ context: producer });
    const attributes: Attributes = {
      ...this.common,
      [ATTR.operationType]: 'process',
      [ATTR.operationName]: 'process',
      [ATTR.destinationName]: job.jobType,
      [ATTR.messageId]: String(job.id),
      [ATTR.clientId]: workerId,
      [ATTR.attempt]: job.attempts,
    };
    return guard.startSpan(
      tracer,
      spanName('process', job.jobType),
      { kind: api.SpanKind.CONSUMER, attributes, links },
      guard.active(),
    );
  }

  /**
   * Due time to start, for a job's first run only: a claim sets `startedAt` only on the first
   * pickup, to the claim's time, which is also `lockedAt` then. A retry or a resumed wait was
   * held back on purpose, which is not latency.
   */
  private recordPickup(job: ClaimedJob): void {
    const histogram = this.metrics?.pickupLatency;
    if (!histogram || job.startedAt === null || job.startedAt.getTime() !== job.lockedAt?.getTime()) return;
    const seconds = Math.max(0, this.clock.now().getTime() - job.runAt.getTime()) / 1000;
    histogram.record(seconds, this.metricAttributes(job.jobType));
  }

  private metricAttributes(jobType: string): Attributes {
    return { [ATTR.messagingSystem]: MESSAGING_SYSTEM_VALUE, [ATTR.destinationName]: jobType };
  }
}

/** One handler run: its span (when traced) and duration. */
class OtelRun implements RunTelemetry {
  private seconds = 0;

  constructor(
    private readonly guard: TelemetryGuard,
    private readonly telemetry: OtelTelemetry,
    private readonly job: ClaimedJob,
    private readonly traced: { span: GuardedSpan; tracer: Tracer } | undefined,
  ) {}

  async within<T>(run: () => Promise<T>): Promise<T> {
    const span = this.traced?.span;
    const started = performance.now();
    try {
      // The run's span is active in the handler: spans it starts are its children.
      return await (span ? this.guard.withSpan(this.guard.active(), span, run) : run());
    } finally {
      this.seconds = (performance.now() - started) / 1000;
    }
  }

  settle<T>(operation: 'complete' | 'fail', write: () => Promise<T>): Promise<T> {
    return this.traced ? this.telemetry.traceSettle(this.traced, this.job, operation, write) : write();
  }

  end(outcome: RunOutcome): void {
    this.telemetry.recordDuration(this.job, this.seconds, outcome);
    const span = this.traced?.span;
    if (!span) return;
    span.setAttribute(ATTR.outcome, outcome.status);
    if (outcome.status === 'failed') span.setAttribute(ATTR.failureReason, outcome.reason);
    if (outcome.status === 'failed' || outcome.status === 'lost') span.recordError(outcome.error);
    span.end();
  }
}

/** The job type all of `jobs` share, or undefined for a batch of several types. */
function commonJobType(jobs: readonly NewJob[]): string | undefined {
  const first = jobs[0]?.jobType;
  return jobs.every((j) => j.jobType === first) ? first : undefined;
}

/** `<operation> <job type>`, or the operation alone when there is no single job type. */
function spanName(operation: string, jobType: string | undefined): string {
  return jobType === undefined ? operation : `${operation} ${jobType}`;
}
