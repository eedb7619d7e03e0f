/**
 * Telemetry that throws never changes what the queue does (docs/telemetry.md, "When telemetry
 * fails"): with the real OpenTelemetry SDK and a span processor, view or provider of the
 * application's that throws, every add returns once and writes its job once, every job runs
 * to completion, and each failing call is reported once through the queue's logger.
 */
import { context, type Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { MeterProvider, MetricReader, type IAttributesProcessor, type ViewOptions } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { JobQueueConfig, Logger } from '../../src/types.js';
import { forEachBackend, useQueues } from '../helpers/backends.js';
import { trackRunners } from './processing-support.js';

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => {
  context.disable();
});

/** Whether the n-th call (from 1) fails: always, or one time in five. */
type Failing = 'always' | 'one in five';
function failsOn(failing: Failing): () => boolean {
  let calls = 0;
  return () => failing === 'always' || ++calls % 5 === 0;
}

/** A span processor whose `onStart` or `onEnd` throws as `failing` says. */
function throwingProcessor(hook: 'onStart' | 'onEnd', failing: Failing): SpanProcessor {
  const fails = failsOn(failing);
  const maybeThrow = (which: string) => {
    if (which === hook && fails()) throw new Error(`${hook} broke`);
  };
  return {
    onStart: () => maybeThrow('onStart'),
    onEnd: () => maybeThrow('onEnd'),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
}

/** A view that makes every measurement of the queue's instruments throw, inside the SDK. */
const THROWING_VIEW: ViewOptions = {
  meterName: 'queuedev',
  instrumentName: '*',
  attributesProcessors: [
    {
      process: () => {
        throw new Error('view broke');
      },
    } satisfies IAttributesProcessor,
  ],
};

/** A context manager whose `with` throws after it ran the function (restoring the context broke). */
class ThrowingContextManager extends AsyncLocalStorageContextManager {
  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    active: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    super.with(active, fn, thisArg, ...args);
    throw new Error('restoring the context broke');
  }
}

/** A metric reader collected on demand. */
class CollectedReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

interface Line {
  level: string;
  message: string;
}

/** A logger keeping warn and error lines (and throwing after it kept them, when `throws`). */
function recordingLogger(lines: Line[], throws = false): Logger {
  const keep = (level: string) => (message: unknown) => {
    lines.push({ level, message: String(message) });
    if (throws) throw new Error('logger down');
  };
  return { debug: () => undefined, info: () => undefined, warn: keep('warn'), error: keep('error') };
}

forEachBackend('telemetry that throws', (ctx) => {
  const keep = useQueues();
  const runner = trackRunners();

  function queueWith(telemetry: JobQueueConfig['telemetry'], lines: Line[], throwingLogger = false): JobQueue {
    return keep(initJobQueue({ ...ctx.config, telemetry, logger: recordingLogger(lines, throwingLogger) }));
  }

  /**
   * Adds `count` jobs, half with addJob and half with addJobs in batches of 10, then runs them
   * all; asserts every add returned, each job was written once and completed.
   */
  async function addAndRun(queue: JobQueue, count: number): Promise<void> {
    const ids: number[] = [];
    for (let n = 0; n < count / 2; n++) ids.push(await queue.addJob({ jobType: 'work', payload: { n } }));
    for (let n = count / 2; n < count; n += 10) {
      const batch = Array.from({ length: Math.min(10, count - n) }, (_, i) => ({
        jobType: 'work',
        payload: { n: n + i },
      }));
      ids.push(...(await queue.addJobs(batch)));
    }
    expect(new Set(ids).size).toBe(count);
    expect((await queue.getJobCounts()).byStatus).toMatchObject({ pending: count });

    const processor = runner(queue.createProcessor({ work: async () => undefined }, { batchSize: 10 }));
    let runs = 0;
    for (let claimed = await processor.start(); claimed > 0; claimed = await processor.start()) runs += claimed;
    expect(runs).toBe(count);
    expect((await queue.getJobCounts()).byStatus).toMatchObject({
      pending: 0,
      processing: 0,
      failed: 0,
      completed: count,
    });
  }

  /** The warnings naming `call`. */
  const reports = (lines: Line[], call: string) => lines.filter((l) => l.message.includes(`telemetry: ${call} threw`));

  it.each(['always', 'one in five'] as const)(
    'adds once and completes every job when a span processor onEnd throws %s, reported once',
    async (failing) => {
      const lines: Line[] = [];
      const tracerProvider = new BasicTracerProvider({ spanProcessors: [throwingProcessor('onEnd', failing)] });
      await addAndRun(queueWith({ tracerProvider }, lines), failing === 'always' ? 40 : 200);
      expect(reports(lines, 'span.end')).toEqual([
        { level: 'warn', message: 'telemetry: span.end threw, so it was skipped: onEnd broke' },
      ]);
      expect(lines).toHaveLength(1);
    },
  );

  it.each(['always', 'one in five'] as const)(
    'adds and claims untraced when a span processor onStart throws %s, reported once',
    async (failing) => {
      const lines: Line[] = [];
      const tracerProvider = new BasicTracerProvider({ spanProcessors: [throwingProcessor('onStart', failing)] });
      await addAndRun(queueWith({ tracerProvider }, lines), failing === 'always' ? 40 : 200);
      expect(lines).toEqual([
        { level: 'warn', message: 'telemetry: tracer.startSpan threw, so it was skipped: onStart broke' },
      ]);
    },
  );

  it('adds once and completes every job when every measurement throws inside the SDK, reported once', async () => {
    const lines: Line[] = [];
    const meterProvider = new MeterProvider({ views: [THROWING_VIEW] });
    const queue = queueWith({ meterProvider }, lines);
    await addAndRun(queue, 20);
    await queue.addJob({ jobType: 'bad', payload: {}, maxAttempts: 1 });
    const bad = async () => {
      throw new Error('handler broke');
    };
    expect(await runner(queue.createProcessor({ bad }, { jobType: 'bad' })).start()).toBe(1);
    // added, completed, failed, the run's duration and the pickup latency: one line each (besides
    // the warning of the failed attempt itself).
    const telemetryLines = lines.filter((l) => l.message.startsWith('telemetry: '));
    expect(lines.filter((l) => !telemetryLines.includes(l)).map((l) => l.level)).toEqual(['warn']);
    expect(telemetryLines.map((l) => l.message).sort()).toEqual(
      [
        'queuedev.jobs.added',
        'queuedev.jobs.completed',
        'queuedev.jobs.failed',
        'messaging.process.duration',
        'queuedev.job.pickup_latency',
      ]
        .map((name) => `telemetry: recording ${name} threw, so it was skipped: view broke`)
        .sort(),
    );
    await meterProvider.shutdown();
  });

  it('starts without spans when getTracer throws, with a warning instead of a raw throw', async () => {
    const lines: Line[] = [];
    class BrokenTracerProvider extends BasicTracerProvider {
      override getTracer(): never {
        throw new Error('no tracer today');
      }
    }
    const queue = queueWith({ tracerProvider: new BrokenTracerProvider() }, lines);
    expect(lines).toEqual([
      { level: 'warn', message: 'telemetry: tracerProvider.getTracer threw, so it was skipped: no tracer today' },
    ]);
    await addAndRun(queue, 20);
    expect(lines).toHaveLength(1);
  });

  it('starts without metrics when getMeter throws, with a warning instead of a raw throw', async () => {
    const lines: Line[] = [];
    class BrokenMeterProvider extends MeterProvider {
      override getMeter(): never {
        throw new Error('no meter today');
      }
    }
    await addAndRun(queueWith({ meterProvider: new BrokenMeterProvider() }, lines), 10);
    expect(lines).toEqual([
      { level: 'warn', message: 'telemetry: meterProvider.getMeter threw, so it was skipped: no meter today' },
    ]);
  });

  it('starts without the instruments it cannot create, keeping the others', async () => {
    const lines: Line[] = [];
    class NoHistogramsProvider extends MeterProvider {
      override getMeter(...args: Parameters<MeterProvider['getMeter']>) {
        const meter = super.getMeter(...args);
        meter.createHistogram = () => {
          throw new Error('no histograms');
        };
        return meter;
      }
    }
    const reader = new CollectedReader();
    const meterProvider = new NoHistogramsProvider({ readers: [reader] });
    await addAndRun(queueWith({ meterProvider }, lines), 10);
    const { resourceMetrics } = await reader.collect();
    const counted = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .map((metric) => [metric.descriptor.name, metric.dataPoints.reduce((sum, p) => sum + Number(p.value), 0)]);
    expect(Object.fromEntries(counted)).toEqual({ 'queuedev.jobs.added': 10, 'queuedev.jobs.completed': 10 });
    expect(lines.map((l) => l.message)).toEqual([
      'telemetry: meter.createHistogram messaging.process.duration threw, so it was skipped: no histograms',
      'telemetry: meter.createHistogram queuedev.job.pickup_latency threw, so it was skipped: no histograms',
    ]);
    await meterProvider.shutdown();
  });

  it('adds once and runs every job when the context manager throws after running the operation', async () => {
    const lines: Line[] = [];
    context.disable();
    context.setGlobalContextManager(new ThrowingContextManager().enable());
    try {
      await addAndRun(queueWith({ tracerProvider: new BasicTracerProvider() }, lines), 20);
    } finally {
      context.disable();
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    }
    expect(lines).toEqual([
      { level: 'warn', message: 'telemetry: context.with threw, so it was skipped: restoring the context broke' },
    ]);
  });

  it('goes on when the logger that would report the failure throws too', async () => {
    const lines: Line[] = [];
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [throwingProcessor('onEnd', 'always')] });
    await addAndRun(queueWith({ tracerProvider }, lines, true), 20);
    expect(reports(lines, 'span.end')).toHaveLength(1);
  });
});
