import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { afterEach, describe, expect, it } from 'vitest';
import { registerQueueDepthGauge } from './queue-depth.js';

/** A reader collected on demand. */
class TestReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

// Each test passes a Meter of the SDK as it is typed: the structural QueueDepthMeter accepts it.
describe('registerQueueDepthGauge', () => {
  let provider: MeterProvider | undefined;
  afterEach(async () => {
    await provider?.shutdown();
  });

  async function depthAfter(read: () => Promise<Record<string, number>>, stop = false) {
    const reader = new TestReader({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
    provider = new MeterProvider({ readers: [reader] });
    const unregister = registerQueueDepthGauge(provider.getMeter('app'), read);
    if (stop) unregister();
    const { resourceMetrics, errors } = await reader.collect();
    expect(errors).toEqual([]);
    const metric = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === 'queuedev.queue.depth');
    return metric?.dataPoints.map((p) => [p.attributes['queuedev.job.status'], p.value]) ?? [];
  }

  it('reports one value per status read at collection time', async () => {
    let reads = 0;
    const points = await depthAfter(async () => {
      reads++;
      return { pending: 12, processing: 2, completed: 40, failed: 3, cancelled: 0, waiting: 1 };
    });
    expect(reads).toBe(1);
    expect(points).toEqual([
      ['pending', 12],
      ['processing', 2],
      ['completed', 40],
      ['failed', 3],
      ['cancelled', 0],
      ['waiting', 1],
    ]);
  });

  it('skips statuses the source leaves out or cannot count', async () => {
    expect(await depthAfter(async () => ({ pending: 5, failed: Number.NaN, other: 3 }))).toEqual([['pending', 5]]);
  });

  it('reports nothing when the read fails, and nothing once stopped', async () => {
    expect(await depthAfter(() => Promise.reject(new Error('store down')))).toEqual([]);
    expect(await depthAfter(async () => ({ pending: 1 }), true)).toEqual([]);
  });
});
