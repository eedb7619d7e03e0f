/**
 * Parsing of `timestamptz` values on the hot path. A claimed job carries five timestamps, and the
 * driver's parser (a regular expression, then several `parseInt`s) costs about 2 µs each: a
 * sizeable part of a claimed job's processing when claims return hundreds of rows. This parser
 * reads PostgreSQL's ISO output (DateStyle ISO, the default) by position, and hands every other
 * form (infinity, BC, years before 100 or past 9999, another DateStyle) to the driver's parser,
 * so the Date it returns is always the driver's.
 */

/** The type OID of `timestamptz`. */
export const TIMESTAMPTZ_OID = 1184;

/** What a parser of the driver looks like (pg's `types.getTypeParser`). */
export interface TypeParsers {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown;
}

/** Two decimal digits at `i`, or NaN. */
function digits2(text: string, i: number): number {
  const a = text.charCodeAt(i) - 48;
  const b = text.charCodeAt(i + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : Number.NaN;
}

/**
 * `YYYY-MM-DD HH:MM:SS[.f…]±HH[:MM]` to a Date, exactly as the driver's parser (postgres-date)
 * does: fractions of a millisecond are dropped. Anything else goes to `fallback`.
 */
export function timestamptzParser(fallback: (value: string) => unknown): (value: string) => unknown {
  return (text: string) => {
    const n = text.length;
    if (
      n < 22 ||
      text.charCodeAt(4) !== 45 || // -
      text.charCodeAt(7) !== 45 ||
      text.charCodeAt(10) !== 32 || // space
      text.charCodeAt(13) !== 58 || // :
      text.charCodeAt(16) !== 58
    ) {
      return fallback(text);
    }
    let i = 19;
    let ms = 0;
    if (text.charCodeAt(i) === 46) {
      // . and the fraction's digits
      const start = i;
      i++;
      while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
      ms = 1000 * parseFloat(text.slice(start, i));
    }
    const sign = text.charCodeAt(i);
    const withMinutes = n === i + 6 && text.charCodeAt(i + 3) === 58;
    if ((sign !== 43 && sign !== 45) || (n !== i + 3 && !withMinutes)) return fallback(text);
    const year = digits2(text, 0) * 100 + digits2(text, 2);
    const offsetMs = (digits2(text, i + 1) * 60 + (withMinutes ? digits2(text, i + 4) : 0)) * 60_000;
    const utc = Date.UTC(
      year,
      digits2(text, 5) - 1,
      digits2(text, 8),
      digits2(text, 11),
      digits2(text, 14),
      digits2(text, 17),
      ms,
    );
    // Date.UTC reads years 0 to 99 as 1900 to 1999: the driver's parser corrects that itself.
    if (!(year >= 100) || Number.isNaN(utc) || Number.isNaN(offsetMs)) return fallback(text);
    return new Date(sign === 43 ? utc - offsetMs : utc + offsetMs);
  };
}

/** The driver's parsers, with `timestamptz` text read by timestamptzParser. */
export function withFastTimestamps(base: TypeParsers): TypeParsers {
  const fast = timestamptzParser(base.getTypeParser(TIMESTAMPTZ_OID, 'text'));
  return {
    getTypeParser: (oid, format = 'text') =>
      oid === TIMESTAMPTZ_OID && format === 'text' ? fast : base.getTypeParser(oid, format),
  };
}
