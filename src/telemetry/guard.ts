/**
 * The one door from the queue into OpenTelemetry: every call otel.ts makes into the API (and,
 * through it, into the SDK and the application's span processors, samplers, views, exporters
 * and context manager) goes through a TelemetryGuard, so telemetry never changes what the
 * queue does. A call that throws is skipped: the span it would have started, the attribute,
 * event or measurement it would have recorded is lost, and the job, add or claim it was about
 * goes on as if telemetry were off. The failure is written to the queue's log as a warning,
 * once per call and cause (RepeatedErrors: again only when the message changes).
 */
import type {
  Attributes,
  Context,
  Meter,
  MeterProvider,
  MetricOptions,
  Span,
  SpanOptions,
  Tracer,
  TracerProvider,
} from '@opentelemetry/api';
import { describeThrown, toError } from '../failure.js';
import type { Log } from '../log.js';
import { RepeatedErrors } from '../repeated-errors.js';
import { ATTR, errorType, SCOPE_NAME } from './names.js';
import { formatTraceContext } from './trace-context.js';

type Api = typeof import('@opentelemetry/api');

/** What a call into the API gave: its value, or what it threw. */
type Outcome<T> = { value: T } | { thrown: unknown };

/** @internal */
export class TelemetryGuard {
  private readonly repeated = new RepeatedErrors();

  constructor(
    readonly api: Api,
    private readonly log: Log,
  ) {}

  /**
   * `call()`, or `fallback` when it throws (reported). `what` names the call in the log line
   * and, with the error's message, is the cause a report is made once for.
   */
  run<T>(what: string, call: () => T, fallback: T): T {
    try {
      return call();
    } catch (err) {
      this.failed(what, err);
      return fallback;
    }
  }

  /** Reports that `what` threw `err`, unless the same call failed the same way before. */
  private failed(what: string, err: unknown): void {
    const error = toError(err);
    if (!this.repeated.isNew(what, error)) return;
    this.log.warn(`telemetry: ${what} threw, so it was skipped: ${describeThrown(err)}`, { error });
  }

  /**
   * The tracer to use now, or undefined while there is none. The global provider is a proxy that
   * hands out no-op tracers until an SDK registers a delegate (maybe after the queue was built):
   * until then it is asked each time, for the price of one guarded call, and no span exists.
   * A provider whose getTracer throws leaves the queue without spans.
   */
  tracerSource(provider: TracerProvider, version: string | undefined): () => Tracer | undefined {
    const proxy = provider as TracerProvider & {
      getDelegateTracer?: (name: string, version?: string) => Tracer | undefined;
    };
    if (typeof proxy.getDelegateTracer === 'function') {
      let tracer: Tracer | undefined;
      const delegate = () => proxy.getDelegateTracer!(SCOPE_NAME, version);
      return () => (tracer ??= this.run('tracerProvider.getDelegateTracer', delegate, undefined));
    }
    const tracer = this.run('tracerProvider.getTracer', () => provider.getTracer(SCOPE_NAME, version), undefined);
    return () => tracer;
  }

  /** The meter, or undefined when it is the API's no-op one (no SDK registered) or getMeter throws. */
  meter(provider: MeterProvider, version: string | undefined): Meter | undefined {
    const { api } = this;
    return this.run(
      'meterProvider.getMeter',
      () => {
        const meter = provider.getMeter(SCOPE_NAME, version);
        return meter.constructor === api.createNoopMeter().constructor ? undefined : meter;
      },
      undefined,
    );
  }

  /** A counter or histogram of `meter`, or undefined when creating it throws (that instrument is left out). */
  instrument(
    meter: Meter,
    kind: 'createCounter' | 'createHistogram',
    name: string,
    options: MetricOptions,
  ): GuardedInstrument | undefined {
    return this.run(
      `meter.${kind} ${name}`,
      () => {
        if (kind === 'createCounter') {
          const counter = meter.createCounter(name, options);
          return new GuardedInstrument(this, name, (value, attributes) => counter.add(value, attributes));
        }
        const histogram = meter.createHistogram(name, options);
        return new GuardedInstrument(this, name, (value, attributes) => histogram.record(value, attributes));
      },
      undefined,
    );
  }

  /** The active context; the root context when the context manager fails. */
  active(): Context {
    return this.run('context.active', () => this.api.context.active(), this.api.ROOT_CONTEXT);
  }

  /** A span started on `tracer`, or undefined when starting it threw (the operation runs untraced). */
  startSpan(tracer: Tracer, name: string, options: SpanOptions, parent: Context): GuardedSpan | undefined {
    const span = this.run('tracer.startSpan', () => tracer.startSpan(name, options, parent), undefined);
    return span && new GuardedSpan(this, span);
  }

  /** `parent` with `span` as its span (the parent of spans started in it); `parent` when that fails. */
  contextWith(parent: Context, span: GuardedSpan): Context {
    return this.run('trace.setSpan', () => this.api.trace.setSpan(parent, span.span), parent);
  }

  /**
   * `fn()` with `span` active in `parent`: spans started within are its children. `fn` runs
   * exactly once whatever the context manager does: when it throws before calling `fn`, `fn`
   * runs without the span; when it throws after, `fn`'s own outcome is kept.
   */
  withSpan<T>(parent: Context, span: GuardedSpan, fn: () => T): T {
    let outcome: Outcome<T> | undefined;
    const once = () => {
      outcome ??= attempt(fn);
    };
    const context = this.contextWith(parent, span);
    this.run('context.with', () => this.api.context.with(context, once), undefined);
    outcome ??= attempt(fn);
    if ('thrown' in outcome) throw outcome.thrown;
    return outcome.value;
  }
}

/** A span whose every method is guarded: none throws, whatever the span processors do. */
export class GuardedSpan {
  constructor(
    private readonly guard: TelemetryGuard,
    /** The SDK's span, for the context that makes it a parent. */
    readonly span: Span,
  ) {}

  isRecording(): boolean {
    return this.guard.run('span.isRecording', () => this.span.isRecording(), false);
  }

  /** The span's context as stored with a job (trace-context.ts). */
  traceContext(): string | undefined {
    return this.guard.run('span.spanContext', () => formatTraceContext(this.span.spanContext()), undefined);
  }

  setAttribute(key: string, value: string | number | boolean): void {
    this.guard.run('span.setAttribute', () => this.span.setAttribute(key, value), undefined);
  }

  /** The exception, error.type and error status of a failed operation or run. */
  recordError(err: unknown): void {
    const error = toError(err);
    const { api } = this.guard;
    this.guard.run('span.recordException', () => this.span.recordException(error), undefined);
    this.setAttribute(ATTR.errorType, errorType(error));
    this.guard.run(
      'span.setStatus',
      () => this.span.setStatus({ code: api.SpanStatusCode.ERROR, message: error.message }),
      undefined,
    );
  }

  end(): void {
    this.guard.run('span.end', () => this.span.end(), undefined);
  }
}

/** A metric instrument whose measurements are guarded: a counter's `add` or a histogram's `record`. */
export class GuardedInstrument {
  constructor(
    private readonly guard: TelemetryGuard,
    private readonly name: string,
    private readonly measure: (value: number, attributes: Attributes) => void,
  ) {}

  record(value: number, attributes: Attributes): void {
    this.guard.run(`recording ${this.name}`, () => this.measure(value, attributes), undefined);
  }
}

function attempt<T>(fn: () => T): Outcome<T> {
  try {
    return { value: fn() };
  } catch (thrown) {
    return { thrown };
  }
}
