/**
 * Cron expressions → run times (SPEC §2.9). A standard 5-field expression is evaluated in an IANA
 * time zone by croner, which is DST-correct: a time that does not exist (spring gap) runs at the
 * next valid minute, and a time that occurs twice (autumn overlap) runs once.
 */
import { Cron } from 'croner';
import { ensure, fail } from './checks.js';
import { ValidationError } from './errors.js';
import { unstorableStringReason } from './storable.js';

const E = ValidationError;
const TIMEZONE_RULE = "an IANA time zone such as 'Europe/Berlin'";

function compile(expression: string, timezone: string): Cron {
  return new Cron(expression, { timezone, paused: true, mode: '5-part' });
}

/** Throws ValidationError unless `expression` is a valid 5-field cron expression. */
export function requireCronExpression(field: string, expression: unknown): string {
  if (typeof expression !== 'string' || expression.trim().split(/\s+/).length !== 5) {
    fail(E, field, 'a standard 5-field cron expression (minute hour day month weekday)', expression);
  }
  const unstorable = unstorableStringReason(expression);
  if (unstorable) fail(E, field, `a cron expression without ${unstorable}`, expression);
  try {
    compile(expression, 'UTC');
  } catch (err) {
    // croner says which part is wrong ("minute out of range"); keep that in the rule.
    fail(E, field, `a valid cron expression (${(err as Error).message})`, expression);
  }
  return expression;
}

/** Throws ValidationError unless `timezone` is an IANA time zone this runtime knows. */
export function requireTimezone(field: string, timezone: unknown): string {
  ensure(
    E,
    typeof timezone === 'string' && timezone.length > 0 && unstorableStringReason(timezone) === null,
    field,
    TIMEZONE_RULE,
    timezone,
  );
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    fail(E, field, TIMEZONE_RULE, timezone);
  }
  return timezone;
}

/**
 * The first run strictly after `after`. A schedule that missed several slots therefore gets one
 * next run in the future, not one per missed slot.
 */
export function nextCronRun(expression: string, timezone: string, after: Date): Date {
  const next = compile(expression, timezone).nextRun(after);
  if (!next) fail(E, 'cronExpression', `a cron expression that runs after ${after.toISOString()}`, expression);
  return next;
}
