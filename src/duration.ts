/** Durations of waits and token timeouts (DETAILS "Handler context"). */
import { checkKnownKeys, checkNumber, checkObject, ensure, fail } from './checks.js';
import { ValidationError } from './errors.js';
import { MAX_DATE } from './storable.js';

const E = ValidationError;

/** `ctx.waitFor` input; the parts are added up and must total more than 0. */
export interface WaitDuration {
  /**
   * Seconds to wait.
   * @default 0
   * @example await ctx.waitFor({ seconds: 30 })
   */
  seconds?: number | undefined;
  /**
   * Minutes to wait.
   * @default 0
   * @example await ctx.waitFor({ minutes: 5 })
   */
  minutes?: number | undefined;
  /**
   * Hours to wait.
   * @default 0
   * @example await ctx.waitFor({ hours: 1, minutes: 30 })
   */
  hours?: number | undefined;
  /**
   * Days to wait.
   * @default 0
   * @example await ctx.waitFor({ days: 2 })
   */
  days?: number | undefined;
  /**
   * Weeks to wait.
   * @default 0
   * @example await ctx.waitFor({ weeks: 1 })
   */
  weeks?: number | undefined;
  /**
   * Months to wait, 30 days each.
   * @default 0
   * @example await ctx.waitFor({ months: 1 })
   */
  months?: number | undefined;
  /**
   * Years to wait, 365 days each.
   * @default 0
   * @example await ctx.waitFor({ years: 1 })
   */
  years?: number | undefined;
}

const SECOND = 1000;
const UNIT_MS: Record<keyof WaitDuration, number> = {
  seconds: SECOND,
  minutes: 60 * SECOND,
  hours: 3600 * SECOND,
  days: 86_400 * SECOND,
  weeks: 7 * 86_400 * SECOND,
  months: 30 * 86_400 * SECOND,
  years: 365 * 86_400 * SECOND,
};

/** Milliseconds of a WaitDuration; throws unless every part is a finite number >= 0 and the total > 0. */
export function durationToMs(duration: WaitDuration, field = 'duration'): number {
  const parts = checkObject(E, field, duration, 'an object such as { minutes: 5 }');
  checkKnownKeys(E, field, parts, Object.keys(UNIT_MS), 'a wait duration');
  let total = 0;
  for (const [unit, value] of Object.entries(parts)) {
    if (value === undefined) continue;
    total += checkNumber(E, `${field}.${unit}`, value, 0) * UNIT_MS[unit as keyof WaitDuration];
  }
  // The value described is the total, the number the rule is about.
  ensure(E, total > 0, field, 'a duration adding up to more than 0 ms', total);
  return total;
}

/** The instant `ms` after `now`; throws ValidationError naming `field` when it lies past MAX_DATE. */
export function timeAfter(now: Date, ms: number, field: string): Date {
  const at = new Date(now.getTime() + ms);
  if (!(at.getTime() <= MAX_DATE.getTime())) {
    // An end beyond any representable date is an Invalid Date, described as such.
    fail(E, field, `a wait ending by ${MAX_DATE.toISOString()}, the latest time both stores hold`, at);
  }
  return at;
}

const TIMEOUT_UNITS: Record<string, number> = { s: SECOND, m: 60 * SECOND, h: 3600 * SECOND, d: 86_400 * SECOND };
const MAX_TOKEN_TIMEOUT_MS = 365 * 86_400 * SECOND;

/** Parses a token timeout such as `30s`, `10m`, `2h`, `7d` (at most 365 days). */
export function parseTokenTimeout(value: unknown, field = 'timeout'): number {
  const match = typeof value === 'string' ? /^(\d+)([smhd])$/.exec(value.trim()) : null;
  const ms = match ? Number(match[1]) * TIMEOUT_UNITS[match[2]!]! : NaN;
  ensure(
    E,
    match !== null && ms > 0 && ms <= MAX_TOKEN_TIMEOUT_MS,
    field,
    "a duration like '30s', '10m', '2h' or '7d', greater than 0 and at most 365d",
    value,
  );
  return ms;
}
