/**
 * Cron expressions → run times (SPEC §2.9). A standard 5-field expression is evaluated in an IANA
 * time zone by croner, which is DST-correct: a time that does not exist (spring gap) runs at the
 * next valid minute, and a time that occurs twice (autumn overlap) runs once.
 */
import { Cron } from 'croner';
import { ValidationError, describeValue } from './errors.js';
import { unstorableStringReason } from './storable.js';

function compile(expression: string, timezone: string): Cron {
  return new Cron(expression, { timezone, paused: true, mode: '5-part' });
}

/** Throws ValidationError unless `expression` is a valid 5-field cron expression. */
export function requireCronExpression(field: string, expression: unknown): string {
  if (typeof expression !== 'string' || expression.trim().split(/\s+/).length !== 5) {
    throw new ValidationError(
      field,
      `Expected \`${field}\` to be a standard 5-field cron expression (minute hour day month weekday), got ${describeValue(expression)}`,
    );
  }
  const unstorable = unstorableStringReason(expression);
  if (unstorable) {
    throw new ValidationError(field, `Expected \`${field}\` to be a cron expression without ${unstorable}, got ${describeValue(expression)}`);
  }
  try {
    compile(expression, 'UTC');
  } catch (err) {
    throw new ValidationError(field, `Expected \`${field}\` to be a valid cron expression, got ${describeValue(expression)}: ${(err as Error).message}`);
  }
  return expression;
}

/** Throws ValidationError unless `timezone` is an IANA time zone this runtime knows. */
export function requireTimezone(field: string, timezone: unknown): string {
  if (typeof timezone !== 'string' || timezone.length === 0 || unstorableStringReason(timezone) !== null) {
    throw new ValidationError(field, `Expected \`${field}\` to be an IANA time zone such as 'Europe/Berlin', got ${describeValue(timezone)}`);
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw new ValidationError(field, `Expected \`${field}\` to be an IANA time zone such as 'Europe/Berlin', got ${describeValue(timezone)}`);
  }
  return timezone;
}

/**
 * The first run strictly after `after`. A schedule that missed several slots therefore gets one
 * next run in the future, not one per missed slot.
 */
export function nextCronRun(expression: string, timezone: string, after: Date): Date {
  const next = compile(expression, timezone).nextRun(after);
  if (!next) {
    throw new ValidationError('cronExpression', `The cron expression ${describeValue(expression)} never runs after ${after.toISOString()}`);
  }
  return next;
}
