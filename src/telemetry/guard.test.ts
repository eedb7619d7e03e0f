import * as api from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { Log } from '../log.js';
import { TelemetryGuard } from './guard.js';

/** A context manager that throws in `with`, before calling the function or after it returned. */
class ThrowingContextManager extends AsyncLocalStorageContextManager {
  constructor(private readonly when: 'before' | 'after') {
    super();
  }

  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: api.Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    if (this.when === 'before') throw new Error('no context today');
    super.with(context, fn, thisArg, ...args);
    throw new Error('restoring the context broke');
  }
}

/** A guard logging its warnings into `lines`. */
function guardWith(lines: string[]): TelemetryGuard {
  const keep = (message: unknown) => void lines.push(String(message));
  const log = new Log({ debug: keep, info: keep, warn: keep, error: keep }, false);
  return new TelemetryGuard(api, log);
}

describe('TelemetryGuard', () => {
  afterEach(() => {
    api.context.disable();
  });

  function startedSpan(guard: TelemetryGuard) {
    const tracer = new BasicTracerProvider().getTracer('test');
    return guard.startSpan(tracer, 'op', {}, guard.active())!;
  }

  it.each(['before', 'after'] as const)(
    'runs the function exactly once and keeps its value when the context manager throws %s calling it',
    (when) => {
      api.context.setGlobalContextManager(new ThrowingContextManager(when).enable());
      const lines: string[] = [];
      const guard = guardWith(lines);
      let calls = 0;
      expect(guard.withSpan(guard.active(), startedSpan(guard), () => ++calls)).toBe(1);
      expect(calls).toBe(1);
      const message = when === 'before' ? 'no context today' : 'restoring the context broke';
      expect(lines).toEqual([`telemetry: context.with threw, so it was skipped: ${message}`]);
    },
  );

  it("passes the function's own error on, reported as nothing of telemetry's", () => {
    api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const lines: string[] = [];
    const guard = guardWith(lines);
    const thrown = new Error('the operation failed');
    expect(() =>
      guard.withSpan(guard.active(), startedSpan(guard), () => {
        throw thrown;
      }),
    ).toThrow(thrown);
    expect(lines).toEqual([]);
  });

  it('reports a failing call once per cause: again only when its message changes', () => {
    const lines: string[] = [];
    const guard = guardWith(lines);
    const fail = (message: string) => () => {
      throw new Error(message);
    };
    for (let n = 0; n < 3; n++) expect(guard.run('span.end', fail('exporter down'), 'skipped')).toBe('skipped');
    guard.run('span.setAttribute', fail('exporter down'), undefined);
    guard.run('span.end', fail('exporter full'), undefined);
    expect(lines).toEqual([
      'telemetry: span.end threw, so it was skipped: exporter down',
      'telemetry: span.setAttribute threw, so it was skipped: exporter down',
      'telemetry: span.end threw, so it was skipped: exporter full',
    ]);
  });
});
