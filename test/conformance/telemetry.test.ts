/**
 * OpenTelemetry (the `telemetry` option, docs/telemetry.md): the producer span of an add and
 * the consumer span of the job's run, linked through the trace context stored with the job;
 * the claim span; failures on the run span; the metrics; nothing recorded or stored without an
 * SDK. Spans and metrics go to the SDK's in-memory exporters through providers given to the
 * queue; an AsyncLocalStorage context manager carries the active span, as in an application.
 */
import { context, ProxyTracer, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
  type Histogram,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { JobHandlers } from '../../src/processor-options.js';
import type { Clock } from '../../src/types.js';
import { registerQueueDepthGauge } from '../../src/telemetry/queue-depth.js';
import { ManualClock, forEachBackend, useQueues } from '../helpers/backends.js';
import { trackRunners } from './processing-support.js';
import { waitFor } from '../helpers/wait.js';

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

forEachBackend('telemetry (OpenTelemetry spans and metrics)', (ctx) => {
  const keep = useQueues();
  const runner = trackRunners();
  let spans: InMemorySpanExporter;
  let tracerProvider: BasicTracerProvider;
  let metricExporter: InMemoryMetricExporter;
  let reader: PeriodicExportingMetricReader;
  let meterProvider: MeterProvider;

  beforeEach(() => {
    spans = new InMemorySpanExporter();
    tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
    metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
    meterProvider = new MeterProvider({ readers: [reader] });
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await tracerProvider.shutdown();
    await meterProvider.shutdown();
  });

  /** A queue on the test's store recording to this test's providers. */
  function tracedQueue(options: { clock?: Clock } = {}): JobQueue {
    return keep(initJobQueue({ ...ctx.config, ...options, telemetry: { tracerProvider, meterProvider } }));
  }

  /** Runs `fn` with a span of the test's own tracer active (an incoming request, a worker). */
  async function inSpan<T>(name: string, fn: (span: Span) => Promise<T>): Promise<T> {
    const span = tracerProvider.getTracer('test').startSpan(name);
    try {
      return await context.with(trace.setSpan(context.active(), span), () => fn(span));
    } finally {
      span.end();
    }
  }

  /** One processor claim-and-run in the current context. */
  async function runOnce(queue: JobQueue, handlers: JobHandlers, jobType?: string[]): Promise<number> {
    return runner(queue.createProcessor(handlers, { batchSize: 10, ...(jobType ? { jobType } : {}) })).start();
  }

  const finished = (name: string): ReadableSpan[] => spans.getFinishedSpans().filter((s) => s.name === name);
  const only = (name: string): ReadableSpan => {
    const found = finished(name);
    expect(found.map((s) => s.name)).toEqual([name]);
    return found[0]!;
  };

  async function collect(): Promise<MetricData[]> {
    await reader.forceFlush();
    return (
      metricExporter
        .getMetrics()
        .at(-1)
        ?.scopeMetrics.flatMap((s) => s.metrics) ?? []
    );
  }
  function points(data: MetricData[], name: string): DataPoint<unknown>[] {
    return data.find((m) => m.descriptor.name === name)?.dataPoints ?? [];
  }

  it("links the run's CONSUMER span to the PRODUCER span of addJob, through the store, across queues", async () => {
    const producer = tracedQueue();
    const consumer = tracedQueue();
    const jobId = await inSpan('request', () => producer.addJob({ jobType: 'email', payload: { to: 'a' } }));
    const request = only('request');
    const add = only('add email');
    expect(add.kind).toBe(SpanKind.PRODUCER);
    expect(add.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(add.attributes).toMatchObject({
      'messaging.system': 'queuedev',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'add',
      'messaging.destination.name': 'email',
      'messaging.message.id': String(jobId),
      'queuedev.backend': ctx.backend,
    });

    let inner: Span | undefined;
    await inSpan('worker', () =>
      runOnce(consumer, {
        email: async () => {
          inner = tracerProvider.getTracer('test').startSpan('send mail');
          inner.end();
        },
      }),
    );
    const run = only('process email');
    expect(run.kind).toBe(SpanKind.CONSUMER);
    // A child of the context the processor runs in, linked to the add.
    expect(run.parentSpanContext?.spanId).toBe(only('worker').spanContext().spanId);
    expect(run.links.map((l) => l.context)).toEqual([
      expect.objectContaining({ traceId: add.spanContext().traceId, spanId: add.spanContext().spanId, isRemote: true }),
    ]);
    expect(run.attributes).toMatchObject({
      'messaging.system': 'queuedev',
      'messaging.operation.type': 'process',
      'messaging.destination.name': 'email',
      'messaging.message.id': String(jobId),
      'queuedev.job.attempt': 1,
      'queuedev.job.outcome': 'completed',
    });
    expect(run.status.code).toBe(SpanStatusCode.UNSET);
    // The run's span is active in the handler.
    expect(only('send mail').parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    // The completion's write: a CLIENT span under the run.
    const complete = only('complete email');
    expect(complete.kind).toBe(SpanKind.CLIENT);
    expect(complete.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    expect(complete.attributes).toMatchObject({
      'messaging.operation.type': 'settle',
      'messaging.operation.name': 'complete',
      'messaging.destination.name': 'email',
      'messaging.message.id': String(jobId),
    });
    const claim = only('claim');
    expect(claim.kind).toBe(SpanKind.CLIENT);
    expect(claim.attributes).toMatchObject({
      'messaging.operation.type': 'receive',
      'messaging.operation.name': 'claim',
      'messaging.batch.message_count': 1,
    });
  });

  it('makes one PRODUCER span per addJobs batch, which every job of the batch links to', async () => {
    const queue = tracedQueue();
    const ids = await queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {} },
      { jobType: 'a', payload: {} },
    ]);
    const batch = only('add');
    expect(batch.attributes).toMatchObject({ 'messaging.batch.message_count': 3, 'messaging.operation.name': 'add' });
    expect(batch.attributes).not.toHaveProperty('messaging.message.id');
    expect(batch.attributes).not.toHaveProperty('messaging.destination.name');

    await runOnce(queue, { a: async () => undefined, b: async () => undefined });
    const runs = spans.getFinishedSpans().filter((s) => s.kind === SpanKind.CONSUMER);
    expect(runs.map((s) => s.attributes['messaging.message.id']).sort()).toEqual(ids.map(String).sort());
    for (const run of runs) expect(run.links.map((l) => l.context.spanId)).toEqual([batch.spanContext().spanId]);
  });

  it('records a failed run on its span (exception, error.type, error status) and each retry links to the same add', async () => {
    const queue = tracedQueue();
    await queue.addJob({ jobType: 'flaky', payload: {}, maxAttempts: 2, retryDelay: 0 });
    const add = only('add flaky');
    let calls = 0;
    const handlers = {
      flaky: async () => {
        if (++calls === 1) throw new TypeError('boom');
      },
    };
    await runOnce(queue, handlers);
    await vi.waitFor(async () => expect(await runOnce(queue, handlers)).toBe(1));
    const [failed, completed] = finished('process flaky');
    expect(failed!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'boom' });
    expect(failed!.attributes).toMatchObject({
      'error.type': 'TypeError',
      'queuedev.job.outcome': 'failed',
      'queuedev.job.failure_reason': 'handler_error',
      'queuedev.job.attempt': 1,
    });
    expect(failed!.events.map((e) => [e.name, e.attributes?.['exception.message']])).toEqual([['exception', 'boom']]);
    expect(completed!.attributes).toMatchObject({ 'queuedev.job.outcome': 'completed', 'queuedev.job.attempt': 2 });
    // The failure's write and the completion's, each a CLIENT span under its own run.
    const fail = only('fail flaky');
    expect(fail.kind).toBe(SpanKind.CLIENT);
    expect(fail.parentSpanContext?.spanId).toBe(failed!.spanContext().spanId);
    expect(fail.attributes).toMatchObject({ 'messaging.operation.type': 'settle', 'messaging.operation.name': 'fail' });
    expect(only('complete flaky').parentSpanContext?.spanId).toBe(completed!.spanContext().spanId);
    for (const run of [failed!, completed!]) {
      expect(run.links.map((l) => l.context.spanId)).toEqual([add.spanContext().spanId]);
    }
  });

  it('names the failure of a job without a handler NoHandlerError', async () => {
    const queue = tracedQueue();
    await queue.addJob({ jobType: 'orphan', payload: {}, maxAttempts: 1 });
    await runOnce(queue, { other: async () => undefined }, ['other', 'orphan']);
    expect(only('process orphan').attributes).toMatchObject({
      'error.type': 'NoHandlerError',
      'queuedev.job.failure_reason': 'no_handler',
    });
  });

  it('records an add the store refuses on its span, and stores nothing', async () => {
    const queue = tracedQueue();
    await expect(queue.addJob({ jobType: 'late', payload: {}, dependsOn: { jobIds: [987_654] } })).rejects.toThrow();
    const add = only('add late');
    expect(add.status.code).toBe(SpanStatusCode.ERROR);
    expect(add.attributes['error.type']).toBe('DependencyError');
    expect(await queue.getJobs()).toEqual([]);
  });

  it('counts jobs added, completed and failed, and measures handler duration and pickup latency', async () => {
    const clock = new ManualClock(new Date('2030-01-01T00:00:00.000Z'));
    const queue = tracedQueue({ clock });
    await queue.addJobs([
      { jobType: 'ok', payload: {} },
      { jobType: 'ok', payload: {} },
      { jobType: 'bad', payload: {}, maxAttempts: 1 },
    ]);
    clock.advance(5_000);
    await runOnce(queue, {
      ok: async () => undefined,
      bad: async () => {
        throw new RangeError('no');
      },
    });
    const data = await collect();
    const sums = (name: string) =>
      points(data, name)
        .map((p): Record<string, unknown> => ({ ...p.attributes, value: p.value }))
        .sort((x, y) => String(x['messaging.destination.name']).localeCompare(String(y['messaging.destination.name'])));
    expect(sums('queuedev.jobs.added')).toEqual([
      { 'messaging.system': 'queuedev', 'messaging.destination.name': 'bad', value: 1 },
      { 'messaging.system': 'queuedev', 'messaging.destination.name': 'ok', value: 2 },
    ]);
    expect(sums('queuedev.jobs.completed')).toEqual([
      { 'messaging.system': 'queuedev', 'messaging.destination.name': 'ok', value: 2 },
    ]);
    expect(sums('queuedev.jobs.failed')).toEqual([
      {
        'messaging.system': 'queuedev',
        'messaging.destination.name': 'bad',
        'error.type': 'RangeError',
        'queuedev.job.will_retry': false,
        value: 1,
      },
    ]);
    const histogram = (name: string, jobType: string) =>
      points(data, name).find((p) => p.attributes['messaging.destination.name'] === jobType)!.value as Histogram;
    const durations = points(data, 'messaging.process.duration');
    expect(data.find((m) => m.descriptor.name === 'messaging.process.duration')?.dataPointType).toBe(
      DataPointType.HISTOGRAM,
    );
    expect(durations.map((p) => p.attributes['error.type']).sort()).toEqual(['RangeError', undefined]);
    expect(histogram('messaging.process.duration', 'ok').count).toBe(2);
    expect(histogram('messaging.process.duration', 'ok').sum).toBeGreaterThanOrEqual(0);
    // The jobs were due at the add; the clock moved 5 s before they started.
    expect(histogram('queuedev.job.pickup_latency', 'ok')).toMatchObject({ count: 2, sum: 10, min: 5, max: 5 });
    expect(histogram('queuedev.job.pickup_latency', 'bad')).toMatchObject({ count: 1, sum: 5 });
  });

  it('counts a job a cron schedule adds, triggered or due, as added', async () => {
    const queue = tracedQueue();
    const id = await queue.addCronJob({
      scheduleName: 'nightly',
      cronExpression: '0 3 * * *',
      jobType: 'report',
      payload: {},
    });
    expect(await queue.triggerCronJob(id)).not.toBeNull();
    const added = points(await collect(), 'queuedev.jobs.added');
    expect(added.map((p) => [p.attributes['messaging.destination.name'], p.value])).toEqual([['report', 1]]);
  });

  it('reports the queue depth per status from the queue at each collection', async () => {
    const queue = tracedQueue();
    const stop = registerQueueDepthGauge(meterProvider.getMeter('app'), queue);
    const [cancelled] = await queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'a', payload: {} },
      { jobType: 'b', payload: {} },
    ]);
    await queue.cancelJob(cancelled!);
    const depth = async () =>
      Object.fromEntries(
        points(await collect(), 'queuedev.queue.depth').map((p) => [p.attributes['queuedev.job.status'], p.value]),
      );
    expect(await depth()).toEqual({ pending: 2, processing: 0, completed: 0, failed: 0, cancelled: 1, waiting: 0 });
    // Read again at the next collection, not remembered.
    await runOnce(queue, { a: async () => undefined, b: async () => undefined });
    expect(await depth()).toMatchObject({ pending: 0, completed: 2, cancelled: 1 });
    stop();
  });

  it('without an SDK, starts no span and stores no trace context (the run links to nothing)', async () => {
    // The default: the API is installed, the global providers have no SDK behind them.
    expect(trace.getTracerProvider().getTracer('x')).toBeInstanceOf(ProxyTracer);
    const startSpan = vi.spyOn(ProxyTracer.prototype, 'startSpan');
    const plain = keep(initJobQueue(ctx.config));
    const off = keep(initJobQueue({ ...ctx.config, telemetry: false }));
    // Even inside a recorded span of the application's own, nothing is carried.
    await inSpan('request', async () => {
      await plain.addJob({ jobType: 'a', payload: {} });
      await plain.addJobs([{ jobType: 'b', payload: {} }]);
      await off.addJob({ jobType: 'b', payload: {} });
    });
    expect(await runner(plain.createProcessor({ a: async () => undefined }, { jobType: 'a' })).start()).toBe(1);
    expect(startSpan).not.toHaveBeenCalled();
    expect(spans.getFinishedSpans().map((s) => s.name)).toEqual(['request']);

    // A queue that does trace runs the other two: neither carries a context to link to.
    expect(await runOnce(tracedQueue(), { b: async () => undefined })).toBe(2);
    const runs = finished('process b');
    expect(runs).toHaveLength(2);
    for (const run of runs) expect(run.links).toEqual([]);
  });

  it('refuses a telemetry option it cannot use, naming it, before anything is opened', () => {
    const attempt = (telemetry: unknown) => () =>
      initJobQueue({ ...ctx.config, telemetry } as unknown as Parameters<typeof initJobQueue>[0]);
    expect(attempt('on')).toThrow(ConfigError);
    expect(attempt('on')).toThrow('Expected `telemetry` to be true, false or an object');
    expect(attempt({ tracerProvider: {} })).toThrow('`telemetry.tracerProvider`');
    expect(attempt({ meterProvider: 42 })).toThrow('`telemetry.meterProvider`');
    expect(attempt({ tracer: tracerProvider })).toThrow(/tracer/);
  });

  it("shows an idle processor claiming once per job, on the job's wake-up", async () => {
    const queue = tracedQueue();
    // Slots to spare and no poll within the test: every claim is a wake-up's.
    const processor = queue.createProcessor({ ping: async () => undefined }, { concurrency: 5, pollInterval: 60_000 });
    const claims = () => finished('claim').map((s) => s.attributes['messaging.batch.message_count']);
    processor.startInBackground();
    try {
      await waitFor(() => claims().length >= 1, { timeoutMs: 5_000, what: 'the first claim' });
      // The wake-up subscription calls its listener once in place: that claim comes before the count.
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (let n = 0; n < 3; n++) {
        const before = claims().length;
        const id = await queue.addJob({ jobType: 'ping', payload: { n } });
        await waitFor(async () => (await queue.getJob(id))?.status === 'completed', {
          timeoutMs: 5_000,
          what: `job ${id} completed`,
        });
        await new Promise((resolve) => setTimeout(resolve, 200)); // room for a claim too many
        // Neither the slot that frees nor the recorded completion claims: the claim before found
        // the store empty, and the completion released nothing for the store to signal.
        expect(claims().slice(before)).toEqual([1]);
      }
    } finally {
      await processor.stopAndDrain();
    }
  });

  it('runs handlers under the context given by the processor, not under the claim', async () => {
    const queue = tracedQueue();
    await queue.addJob({ jobType: 'ctx', payload: {} });
    let active: Context | undefined;
    await runOnce(queue, {
      ctx: async () => {
        active = context.active();
      },
    });
    const run = only('process ctx');
    expect(trace.getSpan(active!)?.spanContext().spanId).toBe(run.spanContext().spanId);
    // Without an enclosing span, the run is a root span of its own trace (linked, not parented).
    expect(run.parentSpanContext).toBeUndefined();
    expect(run.spanContext().traceId).not.toBe(only('add ctx').spanContext().traceId);
  });
});
