/** Durations of waits and token timeouts (DETAILS "Handler context"). */
import { ValidationError, describeValue } from './errors.js';
import { MAX_DATE } from './storable.js';
import { requireKnownKeys } from './option-keys.js';

/** `ctx.waitFor` input; the parts are added up. */
export interface WaitDuration {
  seconds?: number;
  minutes?: number;
  hours?: number;
  days?: number;
  weeks?: number;
  /** 30 days each. */
  months?: number;
  /** 365 days each. */
  years?: number;
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
  if (typeof duration !== 'object' || duration === null || Array.isArray(duration)) {
    throw new ValidationError(field, `Expected \`${field}\` to be an object such as { minutes: 5 }, got ${describeValue(duration)}`);
  }
  requireKnownKeys(field, duration, Object.keys(UNIT_MS), 'a wait duration');
  let total = 0;
  for (const [unit, value] of Object.entries(duration)) {
    const ms = UNIT_MS[unit as keyof WaitDuration];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new ValidationError(`${field}.${unit}`, `Expected \`${field}.${unit}\` to be a finite number >= 0, got ${describeValue(value)}`);
    }
    total += value * ms;
  }
  if (!(total > 0)) throw new ValidationError(field, `Expected \`${field}\` to add up to more than 0, got ${total} ms`);
  return total;
}

/** The instant `ms` after `now`; throws ValidationError naming `field` when it lies past MAX_DATE. */
export function timeAfter(now: Date, ms: number, field: string): Date {
  const at = new Date(now.getTime() + ms);
  if (!(at.getTime() <= MAX_DATE.getTime())) {
    const end = Number.isNaN(at.getTime()) ? 'beyond any representable date' : at.toISOString();
    throw new ValidationError(
      field,
      `Expected \`${field}\` to end by ${MAX_DATE.toISOString()}, the latest time both stores hold; it would end ${end}`,
    );
  }
  return at;
}

const TIMEOUT_UNITS: Record<string, number> = { s: SECOND, m: 60 * SECOND, h: 3600 * SECOND, d: 86_400 * SECOND };
const MAX_TOKEN_TIMEOUT_MS = 365 * 86_400 * SECOND;

/** Parses a token timeout such as `30s`, `10m`, `2h`, `7d` (at most 365 days). */
export function parseTokenTimeout(value: unknown, field = 'timeout'): number {
  const match = typeof value === 'string' ? /^(\d+)([smhd])$/.exec(value.trim()) : null;
  const ms = match ? Number(match[1]) * TIMEOUT_UNITS[match[2]!]! : NaN;
  if (!match || !(ms > 0) || ms > MAX_TOKEN_TIMEOUT_MS) {
    throw new ValidationError(
      field,
      `Expected \`${field}\` to be a duration like '30s', '10m', '2h' or '7d', greater than 0 and at most 365d, got ${describeValue(value)}`,
    );
  }
  return ms;
}
