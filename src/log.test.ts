import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from './errors.js';
import { Log, checkLogger } from './log.js';
import type { Logger } from './queue-config-types.js';

/** A logger recording each call's arguments; `pinoLike` adds pino's bindings() and levels.values. */
function recorder(pinoLike = false) {
  const calls: { level: string; args: unknown[] }[] = [];
  const method =
    (level: string) =>
    (...args: unknown[]) =>
      void calls.push({ level, args });
  const logger = {
    debug: method('debug'),
    info: method('info'),
    warn: method('warn'),
    error: method('error'),
    ...(pinoLike ? { bindings: () => ({}), levels: { values: { debug: 20 } } } : {}),
  };
  return { calls, logger: logger as unknown as Logger };
}

describe('Log', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('calls a pino-like logger (fields, message) and any other (message, fields), fields left out when empty', () => {
    const pinoLike = recorder(true);
    const other = recorder();
    for (const { logger } of [pinoLike, other]) {
      const log = new Log(logger, false);
      log.info('with fields', { jobId: 1 });
      log.warn('alone');
    }
    expect(pinoLike.calls).toEqual([
      { level: 'info', args: [{ jobId: 1 }, 'with fields'] },
      { level: 'warn', args: [{}, 'alone'] },
    ]);
    expect(other.calls).toEqual([
      { level: 'info', args: ['with fields', { jobId: 1 }] },
      { level: 'warn', args: ['alone'] },
    ]);
  });

  it('writes debug lines only when verbose; a view changes only that', () => {
    const { calls, logger } = recorder();
    const quiet = new Log(logger, false);
    quiet.debug('hidden');
    quiet.withVerbose(true).debug('shown');
    quiet.error('always');
    expect(calls.map((c) => c.args[0])).toEqual(['shown', 'always']);
  });

  it('masks secrets added later, in every view, and URL passwords, in messages, strings and errors', () => {
    const { calls, logger } = recorder();
    const log = new Log(logger, true);
    const view = log.withVerbose(false);
    log.addSecrets(['hunter2']);
    const error = new Error('login hunter2 failed');
    view.error('db postgres://u:pw@h/db said hunter2', { detail: 'hunter2', error, count: 2 });
    expect(calls[0]!.args[0]).toBe('db postgres://u:[redacted]@h/db said [redacted]');
    expect(calls[0]!.args[1]).toEqual({
      detail: '[redacted]',
      count: 2,
      error: {
        name: 'Error',
        message: 'login [redacted] failed',
        stack: expect.stringMatching(/^Error: login \[redacted\] failed\n/),
      },
    });
  });

  it('writes `[queuedev] <message>` to the console without a logger, without the fields', () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const queueLog = new Log(undefined, true);
    queueLog.debug('d', { jobId: 1 });
    queueLog.info('i');
    queueLog.warn('w');
    queueLog.error('e', { error: new Error('x') });
    expect(log.mock.calls).toEqual([['[queuedev] d'], ['[queuedev] i']]);
    expect(warn.mock.calls).toEqual([['[queuedev] w']]);
    expect(error.mock.calls).toEqual([['[queuedev] e']]);
  });

  it('survives a logger that throws and an error whose getters throw', () => {
    const throwing = () => {
      throw new Error('down');
    };
    const log = new Log({ debug: throwing, info: throwing, warn: throwing, error: throwing }, true);
    expect(() => log.error('x')).not.toThrow();
    const { calls, logger } = recorder();
    const hostile = new Error('ok');
    Object.defineProperty(hostile, 'message', {
      get() {
        throw new Error('getter');
      },
    });
    new Log(logger, false).error('y', { error: hostile });
    expect((calls[0]!.args[1] as { error: { message: string } }).error.message).toBe('');
  });

  it('handles the rejection of a logger that returns a promise or a thenable', () => {
    const handlers: unknown[] = [];
    const thenable = { then: (_onFulfilled: unknown, onRejected: unknown) => void handlers.push(onRejected) };
    const badThen = {
      then: () => {
        throw new Error('then broke');
      },
    };
    const log = new Log(
      { debug: () => thenable, info: () => badThen, warn: () => thenable, error: () => thenable },
      true,
    );
    log.debug('d');
    expect(() => log.info('i')).not.toThrow();
    log.error('e');
    expect(handlers).toHaveLength(2);
    for (const handler of handlers) expect(handler).toBeTypeOf('function');
  });
});

describe('Log masking', () => {
  it('masks a line with a 200,000-character error in linear time, URL passwords still masked', () => {
    const { calls, logger } = recorder();
    const long = 'y'.repeat(200_000);
    const started = performance.now();
    new Log(logger, false).warn(`${long} postgres://app:pw@db`, { error: new Error(`${long} redis://:pw@cache`) });
    // Quadratic masking took minutes here; linear takes milliseconds (a wide margin for a loaded machine).
    expect(performance.now() - started).toBeLessThan(2000);
    const [message, fields] = calls[0]!.args as [string, { error: { message: string } }];
    expect(message.endsWith(' postgres://app:[redacted]@db')).toBe(true);
    expect(fields.error.message.endsWith(' redis://:[redacted]@cache')).toBe(true);
  });
});

describe('checkLogger', () => {
  it('accepts console and an object with the four methods', () => {
    expect(checkLogger(console)).toBe(console);
    const { logger } = recorder();
    expect(checkLogger(logger)).toBe(logger);
  });

  it('refuses anything else with a ConfigError naming `logger` and the missing method', () => {
    expect(() => checkLogger(null)).toThrow(ConfigError);
    expect(() => checkLogger({ debug() {}, info() {}, error() {} })).toThrow(
      'Expected `logger` to be an object with debug, info, warn and error methods (pino, winston, console); its `warn` is not a function',
    );
  });
});
