import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { TIMESTAMPTZ_OID, timestamptzParser, withFastTimestamps } from './timestamps.js';

const driver = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (value: string) => unknown;
const fast = timestamptzParser(driver);
const time = (v: unknown) => (v instanceof Date ? v.getTime() : v);

describe('timestamptz parsing of the hot path', () => {
  it('gives the Date the driver gives for ISO output, any offset and fraction', () => {
    const samples: string[] = [];
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const two = (n: number) => String(n).padStart(2, '0');
    for (let k = 0; k < 5000; k++) {
      const date = `${String(100 + random(9900)).padStart(4, '0')}-${two(1 + random(12))}-${two(1 + random(28))}`;
      const clock = `${two(random(24))}:${two(random(60))}:${two(random(60))}`;
      const fraction =
        random(3) === 0
          ? ''
          : `.${String(random(1_000_000))
              .padStart(6, '0')
              .slice(0, 1 + random(6))}`;
      const sign = random(2) === 0 ? '+' : '-';
      const offset = random(2) === 0 ? two(random(15)) : `${two(random(15))}:${two(15 * random(4))}`;
      samples.push(`${date} ${clock}${fraction}${sign}${offset}`);
    }
    for (const s of samples) expect([s, time(fast(s))]).toEqual([s, time(driver(s))]);
  });

  it('hands every other form to the driver', () => {
    const others = [
      'infinity',
      '-infinity',
      '2026-11-24 03:49:43.387+00 BC',
      '0050-01-01 00:00:00+00',
      '12026-11-24 03:49:43+00',
      '2026-11-24 03:49:43.387+05:30:15',
      '2026-11-24T03:49:43.387Z',
    ];
    for (const s of others) expect([s, time(fast(s))]).toEqual([s, time(driver(s))]);
  });

  it('leaves every other type to the parsers it wraps', () => {
    const base = { getTypeParser: (oid: number) => (v: string) => `${String(oid)}:${v}` };
    const types = withFastTimestamps(base);
    expect(types.getTypeParser(20, 'text')('7')).toBe('20:7');
    expect(types.getTypeParser(TIMESTAMPTZ_OID, 'text')('2026-01-01 00:00:00+00')).toEqual(
      new Date('2026-01-01T00:00:00Z'),
    );
  });
});
