import { createTraceState, TraceFlags } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { formatTraceContext, MAX_TRACESTATE_LENGTH, parseTraceContext } from './trace-context.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';

describe('the stored trace context', () => {
  it('is the W3C traceparent of the span, flags included', () => {
    const text = formatTraceContext({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED });
    expect(text).toBe(`00-${TRACE_ID}-${SPAN_ID}-01`);
    expect(formatTraceContext({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.NONE })).toBe(
      `00-${TRACE_ID}-${SPAN_ID}-00`,
    );
  });

  it('reads back as the same span context, marked remote, with its tracestate', () => {
    const traceState = createTraceState('vendor=a,other=b');
    const text = formatTraceContext({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, traceState });
    expect(text).toBe(`00-${TRACE_ID}-${SPAN_ID}-01 vendor=a,other=b`);
    const read = parseTraceContext(text, createTraceState);
    expect(read).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, isRemote: true });
    expect(read?.traceState?.get('vendor')).toBe('a');
    expect(read?.traceState?.serialize()).toBe('vendor=a,other=b');
    expect(parseTraceContext(`00-${TRACE_ID}-${SPAN_ID}-01`, createTraceState)).not.toHaveProperty('traceState');
  });

  it('leaves out a tracestate longer than the W3C limit', () => {
    const long = Array.from({ length: 40 }, (_, i) => `k${i}=${'v'.repeat(20)}`).join(',');
    const traceState = { ...createTraceState(), serialize: () => long };
    expect(long.length).toBeGreaterThan(MAX_TRACESTATE_LENGTH);
    expect(formatTraceContext({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, traceState })).toBe(
      `00-${TRACE_ID}-${SPAN_ID}-01`,
    );
  });

  it.each([
    ['empty', ''],
    ['another version', `01-${TRACE_ID}-${SPAN_ID}-01`],
    ['a short trace id', `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`],
    ['upper-case hex', `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN_ID}-01`],
    ['an all-zero span id', `00-${TRACE_ID}-${'0'.repeat(16)}-01`],
    ['trailing text without a space', `00-${TRACE_ID}-${SPAN_ID}-01x`],
  ])('reads %s as no context, so a damaged value costs the link and not the run', (_case, text) => {
    expect(parseTraceContext(text, createTraceState)).toBeUndefined();
  });
});
