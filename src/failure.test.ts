import { describe, expect, it } from 'vitest';
import { MAX_FAILURE_MESSAGE_LENGTH, describeThrown, failureMessage, storableText, toError } from './failure.js';

const throwing = () => {
  throw new Error('trap');
};

function circular(): unknown {
  const value: Record<string, unknown> = { name: 'loop' };
  value.self = value;
  return value;
}

function errorWithThrowingMessage(): Error {
  const error = new Error('hidden');
  Object.defineProperty(error, 'message', { get: throwing });
  return error;
}

const hostileProxy = () =>
  new Proxy(
    {},
    { get: throwing, getPrototypeOf: throwing, ownKeys: throwing, getOwnPropertyDescriptor: throwing, has: throwing },
  );

describe('describeThrown', () => {
  it.each<[string, () => unknown, string]>([
    ['a string', () => 'boom', 'boom'],
    ['an Error', () => new TypeError('bad type'), 'bad type'],
    ['null', () => null, 'null'],
    ['undefined', () => undefined, 'undefined'],
    ['a symbol', () => Symbol('poison'), 'Symbol(poison)'],
    ['a number', () => 42, '42'],
    ['a plain object', () => ({ code: 7 }), '{"code":7}'],
    ['a circular object', circular, '[object Object]'],
    ['an Error whose message getter throws', errorWithThrowingMessage, 'Error (its message could not be read)'],
    ['an object whose toJSON and toString throw', () => ({ toJSON: throwing, toString: throwing }), '[object Object]'],
    ['a Proxy whose every trap throws', hostileProxy, 'a thrown value that cannot be described'],
  ])('describes %s without throwing', (_name, make, expected) => {
    expect(describeThrown(make())).toBe(expected);
  });
});

describe('toError', () => {
  it('returns an Error with a readable message as it is', () => {
    const error = new RangeError('out of range');
    expect(toError(error)).toBe(error);
  });

  it('prefixes the context and keeps the original as cause', () => {
    const error = new Error('refused');
    const wrapped = toError(error, 'writing failed');
    expect(wrapped.message).toBe('writing failed: refused');
    expect(wrapped.cause).toBe(error);
  });

  it.each<[string, () => unknown]>([
    ['a circular object', circular],
    ['an Error whose message getter throws', errorWithThrowingMessage],
    ['a Proxy whose every trap throws', hostileProxy],
    ['a symbol', () => Symbol()],
  ])('wraps %s in an Error whose message is a string', (_name, make) => {
    const value = make();
    const error = toError(value);
    expect(error).toBeInstanceOf(Error);
    expect(typeof error.message).toBe('string');
    expect(error.cause).toBe(value);
  });
});

describe('storableText and failureMessage', () => {
  it('replaces NUL and lone surrogates with U+FFFD and keeps surrogate pairs', () => {
    expect(storableText('a\u0000b\ud800c\udc00d😀', 100)).toBe('a\uFFFDb\uFFFDc\uFFFDd😀');
  });

  it('keeps text within the bound as it is', () => {
    const text = 'x'.repeat(MAX_FAILURE_MESSAGE_LENGTH);
    expect(failureMessage(new Error(text))).toBe(text);
  });

  it('cuts longer text to the bound and says so', () => {
    const stored = failureMessage(new Error('x'.repeat(100_000)));
    expect(stored.length).toBeLessThanOrEqual(MAX_FAILURE_MESSAGE_LENGTH);
    expect(stored).toMatch(/^x{4000,} … \[truncated from 100000 characters\]$/);
  });

  it('never cuts a surrogate pair in half', () => {
    const stored = storableText('😀'.repeat(100), 41);
    expect((stored as string & { isWellFormed(): boolean }).isWellFormed()).toBe(true);
    expect(stored.length).toBeLessThanOrEqual(41);
    expect(stored).toContain('truncated from 200 characters');
  });
});
