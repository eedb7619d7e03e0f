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
 * registered, no span is started and no trace context is written (tracerSource). Metrics are
 * recorded only when the meter is not the API's no-op one (instrumentsFor).
 */
import type {
  Attributes,
  Counter,
  Histogram,
  Link,
  Meter,
  MeterProvider,
  Span,
  Tracer,
  TracerProvider,
} from '@opentelemetry/api';
import type { AddJobsResult, ClaimedJob, NewJob } from '../backend.js';
import type { RunOutcome } from '../job-runner.js';
import type { Clock } from '../types.js';
import {
  ATTR,
  DURATION_BUCKETS,
  errorType,
  LATENCY_BUCKETS,
  MESSAGING_SYSTEM_VALUE,
  METRIC,
  SCOPE_NAME,
} from './names.js';
import { NO_RUN, type RunTelemetry, type Telemetry } from './telemetry.js';
import { formatTraceContext, parseTraceContext } from './trace-context.js';

type Api = typeof import('@opentelemetry/api');

/** @internal What otel.ts needs: the API module and the providers the queue uses. */
export interface OtelSettings {
  api: Api;
  tracerProvider: TracerProvider;
  meterProvider: MeterProvider;
  backend: 'postgres' | 'redis';
  clock: Clock;
  /** The instrumentation scope version (the package's). */
  version: string | undefined;
}

interface Instruments {
  added: Counter;
  completed: Counter;
  failed: Counter;
  processDuration: Histogram;
  pickupLatency: Histogram;
}

/**
 * The tracer to use now, or undefined while there is none. The global provider is a proxy that
 * hands out no-op tracers until an SDK registers a delegate (maybe after the queue was built):
 * until then it is asked each time, for the price of one property read, and no span exists.
 */
function tracerSource(provider: TracerProvider, version: string | undefined): () => Tracer | undefined {
  const proxy = provider as TracerProvider & {
    getDelegateTracer?: (name: string, version?: string) => Tracer | undefined;
  };
  if (typeof proxy.getDelegateTracer === 'function') {
    let tracer: Tracer | undefined;
    return () => (tracer ??= proxy.getDelegateTracer!(SCOPE_NAME, version));
  }
  const tracer = provider.getTracer(SCOPE_NAME, version);
  return () => tracer;
}

/** The instruments, or undefined when `meter` is the API's no-op meter (no SDK registered). */
function instrumentsFor(api: Api, meter: Meter): Instruments | undefined {
  if (meter.constructor === api.createNoopMeter().constructor) return undefined;
  const jobs = { unit: '{job}', valueType: api.ValueType.INT };
  return {
    added: meter.createCounter(METRIC.added, { ...jobs, description: 'Jobs added to the queue' }),
    completed: meter.createCounter(METRIC.completed, { ...jobs, description: 'Jobs whose run completed' }),
    failed: meter.createCounter(METRIC.failed, { ...jobs, description: 'Failed runs recorded (retried or not)' }),
    processDuration: meter.createHistogram(METRIC.processDuration, {
      unit: 's',
      description: 'Duration of a handler run',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    pickupLatency: meter.createHistogram(METRIC.pickupLatency, {
      unit: 's',
      description: 'Time from when a job was due (its runAt) to the start of its first run',
      advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
    }),
  };
}

/** @internal */
export class OtelTelemetry implements Telemetry {
  private readonly tracer: () => Tracer | undefined;
  private readonly metrics: Instruments | undefined;
  private readonly api: Api;
  private readonly clock: Clock;
  /** Attributes every span starts with. */
  private readonly common: Attributes;

  constructor(settings: OtelSettings) {
    this.api = settings.api;
    this.clock = settings.clock;
    this.tracer = tracerSource(settings.tracerProvider, settings.version);
    this.metrics = instrumentsFor(settings.api, settings.meterProvider.getMeter(SCOPE_NAME, settings.version));
    this.common = { [ATTR.messagingSystem]: MESSAGING_SYSTEM_VALUE, [ATTR.backend]: settings.backend };
  }

  // Not async: without a tracer the call is the backend's own promise, with no wrapper around it.
  traceAdd(jobs: NewJob[], batch: boolean, add: () => Promise<AddJobsResult>): Promise<AddJobsResult> {
    const tracer = this.tracer();
    return tracer ? this.tracedAdd(tracer, jobs, batch, add) : add();
  }

  private async tracedAdd(
    tracer: Tracer,
    jobs: NewJob[],
    batch: boolean,
    add: () => Promise<AddJobsResult>,
  ): Promise<AddJobsResult> {
    const { api } = this;
    const jobType = commonJobType(jobs);
    const attributes: Attributes = {
      ...this.common,
      [ATTR.operationType]: 'send',
      [ATTR.operationName]: 'add',
    };
    if (jobType !== undefined) attributes[ATTR.destinationName] = jobType;
    if (batch) attributes[ATTR.batchMessageCount] = jobs.length;
    const parent = api.context.active();
    const span = tracer.startSpan(spanName('add', jobType), { kind: api.SpanKind.PRODUCER, attributes }, parent);
    // An add the sampler dropped stores nothing: its span is not exported, a link would lead nowhere.
    if (span.isRecording()) {
      const traceContext = formatTraceContext(span.spanContext());
      for (const job of jobs) job.traceContext = traceContext;
    }
    try {
      const result = await api.context.with(api.trace.setSpan(parent, span), add);
      if (!batch && result.ids[0] !== undefined) span.setAttribute(ATTR.messageId, String(result.ids[0]));
      return result;
    } catch (err) {
      recordError(this.api, span, err);
      throw err;
    } finally {
      span.end();
    }
  }

  added(jobs: readonly { jobId: number; jobType: string }[]): void {
    const metrics = this.metrics;
    if (!metrics || jobs.length === 0) return;
    const perType = new Map<string, number>();
    for (const { jobType } of jobs) perType.set(jobType, (perType.get(jobType) ?? 0) + 1);
    for (const [jobType, count] of perType) metrics.added.add(count, this.metricAttributes(jobType));
  }

  traceClaim(workerId: string, claim: () => Promise<ClaimedJob[]>): Promise<ClaimedJob[]> {
    const tracer = this.tracer();
    return tracer ? this.tracedClaim(tracer, workerId, claim) : claim();
  }

  private async tracedClaim(
    tracer: Tracer,
    workerId: string,
    claim: () => Promise<ClaimedJob[]>,
  ): Promise<ClaimedJob[]> {
    const { api } = this;
    const attributes: Attributes = {
      ...this.common,
      [ATTR.operationType]: 'receive',
      [ATTR.operationName]: 'claim',
      [ATTR.clientId]: workerId,
    };
    const parent = api.context.active();
    const span = tracer.startSpan('claim', { kind: api.SpanKind.CLIENT, attributes }, parent);
    try {
      const jobs = await api.context.with(api.trace.setSpan(parent, span), claim);
      span.setAttribute(ATTR.batchMessageCount, jobs.length);
      return jobs;
    } catch (err) {
      recordError(this.api, span, err);
      throw err;
    } finally {
      span.end();
    }
  }

  startRun(job: ClaimedJob, workerId: string): RunTelemetry {
    const tracer = this.tracer();
    if (!tracer && !this.metrics) return NO_RUN;
    this.recordPickup(job);
    const span = tracer ? this.startRunSpan(tracer, job, workerId) : undefined;
    return new OtelRun(this.api, this, job, span && tracer ? { span, tracer } : undefined);
  }

  completed(job: { jobType: string }): void {
    this.metrics?.completed.add(1, this.metricAttributes(job.jobType));
  }

  failed(job: { jobType: string }, error: Error, willRetry: boolean): void {
    if (!this.metrics) return;
    const attributes = this.metricAttributes(job.jobType);
    attributes[ATTR.errorType] = errorType(error);
    attributes[ATTR.willRetry] = willRetry;
    this.metrics.failed.add(1, attributes);
  }

  /** @internal For OtelRun: the run's duration, with error.type when it failed. */
  recordDuration(job: ClaimedJob, seconds: number, outcome: RunOutcome): void {
    if (!this.metrics) return;
    const attributes = this.metricAttributes(job.jobType);
    attributes[ATTR.operationName] = 'process';
    if (outcome.status === 'failed' || outcome.status === 'lost') attributes[ATTR.errorType] = errorType(outcome.error);
    this.metrics.processDuration.record(seconds, attributes);
  }

  /**
   * @internal For OtelRun: `write` (the store call recording the run's outcome) under a CLIENT
   * span that is a child of the run's span.
   */
  async traceSettle<T>(
    traced: { tracer: Tracer; span: Span },
    job: ClaimedJob,
    operation: 'complete' | 'fail',
    write: () => Promise<T>,
  ): Promise<T> {
    const { api } = this;
    const attributes: Attributes = {
      ...this.common,
      [ATTR.operationType]: 'settle',
      [ATTR.operationName]: operation,
      [ATTR.destinationName]: job.jobType,
      [ATTR.messageId]: String(job.id),
    };
    const parent = api.trace.setSpan(api.context.active(), traced.span);
    const span = traced.tracer.startSpan(
      spanName(operation, job.jobType),
      { kind: api.SpanKind.CLIENT, attributes },
      parent,
    );
    try {
      return await api.context.with(api.trace.setSpan(parent, span), write);
    } catch (err) {
      recordError(api, span, err);
      throw err;
    } finally {
      span.end();
    }
  }

  private startRunSpan(tracer: Tracer, job: ClaimedJob, workerId: string): Span {
    const { api } = this;
    const links: Link[] = [];
    const producer =
      job.traceContext === undefined ? undefined : parseTraceContext(job.traceContext, api.createTraceState);
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
    return tracer.startSpan(
      spanName('process', job.jobType),
      { kind: api.SpanKind.CONSUMER, attributes, links },
      api.context.active(),
    );
  }

  /**
   * Due time to start, for a job's first run only: a claim sets `startedAt` only on the first
   * pickup, to the claim's time, which is also `lockedAt` then. A retry or a resumed wait was
   * held back on purpose, which is not latency.
   */
  private recordPickup(job: ClaimedJob): void {
    if (!this.metrics || job.startedAt === null || job.startedAt.getTime() !== job.lockedAt?.getTime()) return;
    const seconds = Math.max(0, this.clock.now().getTime() - job.runAt.getTime()) / 1000;
    this.metrics.pickupLatency.record(seconds, this.metricAttributes(job.jobType));
  }

  private metricAttributes(jobType: string): Attributes {
    return { [ATTR.messagingSystem]: MESSAGING_SYSTEM_VALUE, [ATTR.destinationName]: jobType };
  }
}

/** One handler run: its span (when traced) and duration. */
class OtelRun implements RunTelemetry {
  private seconds = 0;

  constructor(
    private readonly api: Api,
    private readonly telemetry: OtelTelemetry,
    private readonly job: ClaimedJob,
    private readonly traced: { span: Span; tracer: Tracer } | undefined,
  ) {}

  async within<T>(run: () => Promise<T>): Promise<T> {
    const { api } = this;
    const span = this.traced?.span;
    const started = performance.now();
    try {
      // The run's span is active in the handler: spans it starts are its children.
      return await (span ? api.context.with(api.trace.setSpan(api.context.active(), span), run) : run());
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
    if (outcome.status === 'failed' || outcome.status === 'lost') recordError(this.api, span, outcome.error);
    span.end();
  }
}

/** The exception, error.type and error status of a failed operation or run. */
function recordError(api: Api, span: Span, err: unknown): void {
  const error = err instanceof Error ? err : new Error(String(err));
  span.recordException(error);
  span.setAttribute(ATTR.errorType, errorType(error));
  span.setStatus({ code: api.SpanStatusCode.ERROR, message: error.message });
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
