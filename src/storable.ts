/**
 * What both stores hold alike. Every limit here is one a value must meet on PostgreSQL and on
 * Redis, so a value the library accepts behaves the same on either backend and never reaches a
 * store that would refuse it with an untyped error. docs/jobs.md lists these limits for users.
 */

/**
 * Why a string cannot be stored alike in both stores, or null when it can. PostgreSQL text and
 * jsonb refuse NUL, and jsonb refuses a lone UTF-16 surrogate (half of a pair), which Redis would
 * keep as replacement bytes: both are refused so the two backends hold the same values.
 */
export function unstorableStringReason(value: string): string | null {
  if (value.includes('\u0000')) return 'NUL characters';
  if (!(value as string & { isWellFormed(): boolean }).isWellFormed()) return 'lone UTF-16 surrogates';
  return null;
}

/**
 * The earliest instant both stores hold to the millisecond. node-postgres writes years before 1
 * in a form PostgreSQL refuses.
 */
export const MIN_DATE = new Date('0001-01-01T00:00:00.000Z');

/**
 * The latest instant both stores hold to the millisecond. Redis scripts print numbers with 14
 * significant digits, so a time past 1e14 ms (November 5138) loses its milliseconds there;
 * PostgreSQL would hold it. The round year below keeps the rule easy to state.
 */
export const MAX_DATE = new Date('4999-12-31T23:59:59.999Z');

/** Whether `date` lies in [MIN_DATE, MAX_DATE]. */
export function isStorableDate(date: Date): boolean {
  const t = date.getTime();
  return t >= MIN_DATE.getTime() && t <= MAX_DATE.getTime();
}

/**
 * `spanMs`, shortened so that `now - span` is no earlier than MIN_DATE. Used for retention and
 * reclaim windows: nothing is stored before MIN_DATE, so a longer window selects the same rows,
 * and the shorter one stays within what both stores compute with (PostgreSQL intervals end
 * around 178 million years).
 */
export function clampSpanMs(now: Date, spanMs: number): number {
  return Math.max(0, Math.min(spanMs, now.getTime() - MIN_DATE.getTime()));
}

/** The instant `spanMs` before `now`, no earlier than MIN_DATE (see clampSpanMs). */
export function storableTimeBefore(now: Date, spanMs: number): Date {
  return new Date(now.getTime() - clampSpanMs(now, spanMs));
}

/**
 * Deepest nesting of arrays and objects in a stored JSON value (payloads, outputs, step results,
 * token output). Far below what PostgreSQL jsonb and the Redis Lua JSON codec accept (1000), and
 * shallow enough that checking a value never exhausts the call stack.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * Longest idempotency key, in UTF-8 bytes. PostgreSQL's unique index refuses an entry of more
 * than about 2700 bytes; 1024 bytes leaves room and is 1024 ASCII characters.
 */
export const MAX_IDEMPOTENCY_KEY_BYTES = 1024;

/**
 * Longest timer delay Node.js honours: a longer `setTimeout` fires after 1 ms instead, so
 * polling and maintenance intervals above it would spin.
 */
export const MAX_TIMER_MS = 2_147_483_647;
