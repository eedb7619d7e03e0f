/**
 * Turning whatever a handler (or a listener, or a store) throws into something the queue can
 * report and store. A handler may throw anything: a circular object, an Error whose `message`
 * getter throws, a Proxy, `null`, a Symbol. None of that may keep a failure from being
 * recorded, so nothing here ever throws, and the text written to the store is always a
 * bounded string both stores can hold.
 */

/**
 * Longest failure message stored (UTF-16 code units, marker included). Bounds the error
 * history, the `failed` event and the dead-letter envelope a single failure can grow.
 */
export const MAX_FAILURE_MESSAGE_LENGTH = 4096;

/**
 * Longest stack trace stored with a failure (UTF-16 code units, marker included). The top
 * frames are kept: they say where the handler threw.
 */
export const MAX_FAILURE_STACK_LENGTH = 4096;

/**
 * Errors toError made around a value that was not a readable Error: their stack shows where
 * the library wrapped the value, not where it was thrown, so failureStack leaves it out.
 */
const wrappers = new WeakSet<Error>();

/** Replaces NUL and lone surrogates: PostgreSQL refuses NUL, and both stores garble lone surrogates. */
const REPLACEMENT = '\uFFFD';

/**
 * Wraps any thrown value in an Error whose `message` is a readable string, keeping the
 * original as `cause`. An Error with a readable message and no `context` is returned as it is,
 * so hooks and `onError` see the handler's own error. Never throws.
 */
export function toError(value: unknown, context?: string): Error {
  const error = readableError(value);
  if (error && context === undefined) return error;
  const text = describeThrown(value);
  const wrapper = new Error(context === undefined ? text : `${context}: ${text}`, { cause: value });
  wrappers.add(wrapper);
  return wrapper;
}

/** The text of a thrown value: an Error's message, a string itself, otherwise a rendering. Never throws. */
export function describeThrown(value: unknown): string {
  if (typeof value === 'string') return value;
  const error = readableError(value);
  if (error) return error.message;
  if (isError(value)) return `${safeName(value)} (its message could not be read)`;
  if (value === undefined) return 'undefined';
  if (value !== null && typeof value === 'object') {
    try {
      const json = JSON.stringify(value) as string | undefined;
      if (json !== undefined) return json;
    } catch {
      // circular, a throwing toJSON or getter, a BigInt member: fall back to String()
    }
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the last resort after JSON failed: whatever String() gives beats no description
    return String(value);
  } catch {
    // a throwing toString or Symbol.toPrimitive, a revoked Proxy
  }
  try {
    return Object.prototype.toString.call(value);
  } catch {
    return 'a thrown value that cannot be described';
  }
}

/**
 * The failure message written to the store (error history, `failed` event, dead-letter
 * envelope): NUL and lone surrogates replaced by U+FFFD, cut to MAX_FAILURE_MESSAGE_LENGTH.
 */
export function failureMessage(error: unknown): string {
  return storableText(describeThrown(error), MAX_FAILURE_MESSAGE_LENGTH);
}

/**
 * The stack trace stored with a failure, made storable as failureMessage does and cut to
 * MAX_FAILURE_STACK_LENGTH; undefined when `error` has none worth keeping (not an Error, an
 * Error without a string stack, or a wrapper toError made). Never throws.
 */
export function failureStack(error: unknown): string | undefined {
  if (!isError(error) || wrappers.has(error)) return undefined;
  let stack: unknown;
  try {
    stack = error.stack;
  } catch {
    return undefined; // a throwing stack getter
  }
  return typeof stack === 'string' && stack.length > 0 ? storableText(stack, MAX_FAILURE_STACK_LENGTH) : undefined;
}

/** `text` with NUL and lone surrogates replaced, cut to `max` code units with a marker saying so. */
export function storableText(text: string, max: number): string {
  // Both replacements keep the length, so cutting afterwards cannot create a new lone surrogate
  // except by splitting a pair, which is handled below.
  const clean = (text.replaceAll('\u0000', REPLACEMENT) as string & { toWellFormed(): string }).toWellFormed();
  if (clean.length <= max) return clean;
  const marker = ` … [truncated from ${clean.length} characters]`;
  let end = Math.max(0, max - marker.length);
  const last = clean.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // never keep half of a surrogate pair
  return clean.slice(0, end) + marker;
}

/** `value` when it is an Error whose message reads as a string, else undefined. */
function readableError(value: unknown): Error | undefined {
  if (!isError(value)) return undefined;
  try {
    return typeof value.message === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function isError(value: unknown): value is Error {
  try {
    return value instanceof Error;
  } catch {
    return false; // a Proxy whose getPrototypeOf trap throws
  }
}

function safeName(error: Error): string {
  try {
    return typeof error.name === 'string' ? error.name : 'Error';
  } catch {
    return 'Error';
  }
}
