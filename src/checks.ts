/**
 * Input checks: the one place that decides how a broken rule is reported. Every options object
 * the library takes (queue configuration, job options, edits, filters, processor, supervisor,
 * dashboard, cron, tokens, close) is checked with these, so every refusal reads the same way:
 *
 *   Expected `<field>` to be <rule>, got <the value received>
 *
 * (unknown keys add a "Did you mean" hint, see option-keys.ts). Each check takes the error class,
 * which says whose mistake it is: ConfigError for configuration read at construction,
 * ValidationError (which carries `field`) for an operation's input, and RangeError where the
 * handler API documents it (ctx.setProgress, ctx.prolong; TypeError for ctx.onTimeout).
 */
import { ConfigError, ValidationError, describeValue } from './errors.js';
import { findUnknownKey } from './option-keys.js';
import { unstorableStringReason } from './storable.js';

/** The error a failed check throws. */
export type CheckErrorClass =
  typeof ConfigError | typeof ValidationError | RangeErrorConstructor | TypeErrorConstructor;

export const INT32_MAX = 2_147_483_647;
export const INT32_MIN = -2_147_483_648;

/** A plain PostgreSQL identifier, the only kind of schema name the library builds SQL with. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
export const IDENTIFIER_RULE = 'a PostgreSQL identifier (letters, digits and _, not starting with a digit, at most 63)';

/**
 * ctx.setProgress's rule, in the handler context and in the forced-timeout worker (which runs
 * the same check without this module, see worker-source.ts).
 */
export const PROGRESS_RULE = 'a finite number from 0 to 100';

/** The one message shape: "Expected `<field>` to be <rule>, got <value>". */
export function expectation(field: string, rule: string, value: unknown): string {
  return expectationPrefix(field, rule) + describeValue(value);
}

/** The message up to the value received, for code that describes the value itself. */
export function expectationPrefix(field: string, rule: string): string {
  return `Expected \`${field}\` to be ${rule}, got `;
}

/** Throws `errorClass` with `message`; a ValidationError also carries the field. */
function raise(errorClass: CheckErrorClass, field: string, message: string): never {
  if (errorClass === ValidationError) throw new ValidationError(field, message);
  throw new (errorClass as typeof ConfigError)(message);
}

/** Refuses `value` for `field`: it breaks `rule`. */
export function fail(errorClass: CheckErrorClass, field: string, rule: string, value: unknown): never {
  raise(errorClass, field, expectation(field, rule, value));
}

/**
 * Refuses a value for `field` that is described by `received` instead of quoted: a value too
 * large to echo is named by its size (`"at least 104857602 bytes"`).
 */
export function failDescribed(errorClass: CheckErrorClass, field: string, rule: string, received: string): never {
  raise(errorClass, field, expectationPrefix(field, rule) + received);
}

/** Refuses `value` for `field` unless `ok`. For rules that fit no check below. */
export function ensure(
  errorClass: CheckErrorClass,
  ok: boolean,
  field: string,
  rule: string,
  value: unknown,
): asserts ok {
  if (!ok) fail(errorClass, field, rule, value);
}

/** Any object but an array: configuration takes class instances too (a pool, a clock). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An object literal (or Object.create(null)): what job options and stored JSON must be. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isObject(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** An options object; `plain` also refuses class instances. `rule` says what it holds. */
export function checkObject(
  errorClass: CheckErrorClass,
  field: string,
  value: unknown,
  rule: string,
  { plain = false }: { plain?: boolean } = {},
): Record<string, unknown> {
  if (!(plain ? isPlainObject(value) : isObject(value))) fail(errorClass, field, rule, value);
  return value as Record<string, unknown>;
}

/**
 * Refuses keys outside `known`, naming the nearest known key for a near miss (option-keys.ts).
 * `misplaced` names keys that belong elsewhere, with the reason.
 */
export function checkKnownKeys(
  errorClass: CheckErrorClass,
  field: string,
  options: object,
  known: readonly string[],
  what: string,
  misplaced?: Readonly<Record<string, string>>,
): void {
  const unknown = findUnknownKey(field, options, known, what, misplaced);
  if (unknown) raise(errorClass, unknown.field, unknown.message);
}

/** Whether checkString would take `value`, building no message. */
export function isStorableString(value: unknown, maxLength = Infinity): value is string {
  return (
    typeof value === 'string' &&
    value.length <= maxLength &&
    value.trim().length > 0 &&
    unstorableStringReason(value) === null
  );
}

/**
 * A non-blank string both stores hold (no NUL, no lone surrogate), of at most `maxLength`
 * characters: job types, names, worker ids are written to and compared in the store.
 */
export function checkString(errorClass: CheckErrorClass, field: string, value: unknown, maxLength = Infinity): string {
  if (isStorableString(value, maxLength)) return value;
  if (typeof value !== 'string' || value.trim().length === 0) fail(errorClass, field, 'a non-empty string', value);
  if (value.length > maxLength) fail(errorClass, field, `a string of at most ${maxLength} characters`, value);
  const unstorable = unstorableStringReason(value);
  if (unstorable) fail(errorClass, field, `a string without ${unstorable}`, value);
  return value;
}

/** An integer from `min` to `max`; `rule` replaces the default wording. */
export function checkInteger(
  errorClass: CheckErrorClass,
  field: string,
  value: unknown,
  min: number,
  max = INT32_MAX,
  rule = max === INT32_MAX ? `an integer >= ${min}` : `an integer between ${min} and ${max}`,
): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    fail(errorClass, field, rule, value);
  return value;
}

/** A finite number from `min` to `max`; `rule` replaces the default wording. */
export function checkNumber(
  errorClass: CheckErrorClass,
  field: string,
  value: unknown,
  min: number,
  max = Infinity,
  rule = max === Infinity ? `a finite number >= ${min}` : `a finite number from ${min} to ${max}`,
): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    fail(errorClass, field, rule, value);
  return value;
}

export function checkBoolean(errorClass: CheckErrorClass, field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') fail(errorClass, field, 'a boolean', value);
  return value;
}

export function checkFunction(
  errorClass: CheckErrorClass,
  field: string,
  value: unknown,
): (...args: never[]) => unknown {
  if (typeof value !== 'function') fail(errorClass, field, 'a function', value);
  return value as (...args: never[]) => unknown;
}

/** One of `allowed`, listed in the message. */
export function checkOneOf<T extends string>(
  errorClass: CheckErrorClass,
  field: string,
  value: unknown,
  allowed: readonly T[],
): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    fail(errorClass, field, `one of ${allowed.map((s) => `'${s}'`).join(', ')}`, value);
  }
  return value as T;
}

/** A PostgreSQL identifier (see IDENTIFIER): a schema name SQL is built with. */
export function checkIdentifier(errorClass: CheckErrorClass, field: string, value: unknown): string {
  if (typeof value !== 'string' || !IDENTIFIER.test(value)) fail(errorClass, field, IDENTIFIER_RULE, value);
  return value;
}
