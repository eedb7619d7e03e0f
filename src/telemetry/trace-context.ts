/**
 * The trace context stored with a job (NewJob.traceContext; PostgreSQL column `trace_context`,
 * migration 011; the `traceContext` field of a Redis job): the W3C Trace Context `traceparent`
 * value, then a space and the `tracestate` value when there is one. Written where a job is
 * added, read where it is claimed, so the span that runs the job can link to the one that added
 * it, across processes and restarts.
 */
import type { SpanContext, TraceState } from '@opentelemetry/api';

/** `version-traceid-parentid-flags`, version 00 (the only one this code writes). */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ALL_ZEROS = /^0+$/;

/** The longest `tracestate` kept (the W3C limit is 32 entries of at most 256 characters); a longer one is left out. */
export const MAX_TRACESTATE_LENGTH = 512;

/** The stored form of `spanContext`. */
export function formatTraceContext(spanContext: SpanContext): string {
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
  const tracestate = spanContext.traceState?.serialize();
  return tracestate && tracestate.length <= MAX_TRACESTATE_LENGTH ? `${traceparent} ${tracestate}` : traceparent;
}

/**
 * The span context a stored trace context names, marked remote (it was written by another
 * process, or an earlier one); undefined for text that is not a valid version-00 traceparent,
 * so a damaged value costs the link, never the run. `createTraceState` parses the tracestate.
 */
export function parseTraceContext(
  text: string,
  createTraceState: (raw: string) => TraceState,
): SpanContext | undefined {
  const space = text.indexOf(' ');
  const match = TRACEPARENT.exec(space < 0 ? text : text.slice(0, space));
  if (!match) return undefined;
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string];
  if (ALL_ZEROS.test(traceId) || ALL_ZEROS.test(spanId)) return undefined;
  const context: SpanContext = { traceId, spanId, traceFlags: parseInt(flags, 16), isRemote: true };
  if (space >= 0) context.traceState = createTraceState(text.slice(space + 1));
  return context;
}
