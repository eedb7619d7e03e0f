import { describe, expect, it } from 'vitest';
import { jsonByteBounds } from './input-limits.js';

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

describe('jsonByteBounds', () => {
  // Values whose JSON text is escaped, multi-byte, nested, sparse or empty in every way the
  // bounds have to hold for: the real byte count lies between them.
  const values: unknown[] = [
    {},
    [],
    '',
    0,
    -2.2250738585072014e-308,
    true,
    null,
    'plain',
    '\u0000\u001f"\\\n',
    'é漢字😀',
    { '': 1, 'ké\u0001y': ['a', null, undefined, 1.5, { x: false }] },
    [undefined, [], {}, [[['deep']]]],
    { when: new Date(0), skipped: undefined },
    { n: Number.MAX_VALUE, m: -Number.MIN_VALUE, s: '\u2028\ud83d\ude00' },
  ];

  it.each(values.map((v) => [JSON.stringify(v), v]))('holds the real size of %s between its bounds', (_, v) => {
    const { low, high } = jsonByteBounds(v, 1_000_000);
    expect(low).toBeLessThanOrEqual(bytes(v));
    expect(high).toBeGreaterThanOrEqual(bytes(v));
  });

  it('gives no upper bound once the lower one is past the limit', () => {
    const { low, high } = jsonByteBounds({ a: 'x'.repeat(100), b: 'y'.repeat(100) }, 50);
    expect(low).toBeGreaterThan(50);
    expect(high).toBe(Infinity);
  });
});
