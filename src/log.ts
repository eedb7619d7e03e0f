/**
 * The library's log: every line the queue, its processors and supervisors write goes through
 * one Log, to the queue's `logger` (pino, winston, console, or anything with their four
 * methods) or, without one, to the console as `[queuedev] <message>` lines.
 *
 * A line is a message plus structured fields (jobId, jobType, workerId, error, ...). pino takes
 * `(fields, message)`, winston and console take `(message, fields)`: a logger with pino's
 * `bindings()` and `levels.values` is called the first way, every other logger the second.
 * Debug lines are written only where a `verbose` flag asks for them; info, warn and error
 * always. Every string written is masked with the queue's connection secrets first.
 */
import { ConfigError } from './errors.js';
import { fail, isObject } from './checks.js';
import { maskSecrets } from './store-errors.js';
import type { Logger, LogFields, LoggedError } from './queue-config-types.js';

type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** The rule a `logger` must meet, for the ConfigError that refuses one. */
const LOGGER_RULE = 'an object with debug, info, warn and error methods (pino, winston, console)';

/** Refuses a `logger` that lacks one of the four methods: a ConfigError naming `logger` and the method. */
export function checkLogger(value: unknown): Logger {
  if (!isObject(value)) fail(ConfigError, 'logger', LOGGER_RULE, value);
  const missing = LEVELS.find((level) => typeof value[level] !== 'function');
  if (missing !== undefined) {
    throw new ConfigError(`Expected \`logger\` to be ${LOGGER_RULE}; its \`${missing}\` is not a function`);
  }
  return value as unknown as Logger;
}

/** What the library passes for a line: the fields of LogFields, an `error` given as the Error itself. */
export type LogInput = Record<string, unknown>;

/** Writes one line; returns what the logger's method returned (a promise, for an async logger). */
type Sink = (level: LogLevel, message: string, fields: LogFields) => unknown;

/** pino's shape: `bindings()` and `levels.values`. Its methods take the fields first. */
function takesFieldsFirst(logger: Logger): boolean {
  const l = logger as unknown as Record<string, unknown>;
  const levels = l.levels;
  return typeof l.bindings === 'function' && isObject(levels) && isObject(levels.values);
}

/** The console writer without a `logger`: the one-line `[queuedev] <message>` the library always wrote. */
function consoleSink(level: LogLevel, message: string): void {
  const line = `[queuedev] ${message}`;
  if (level === 'error') console.error(line);
  else if (level === 'warn') console.warn(line);
  else console.log(line);
}

function loggerSink(logger: Logger): Sink {
  const fieldsFirst = takesFieldsFirst(logger);
  return (level, message, fields) => {
    // Called as a method: pino and winston need their `this`.
    const target = logger as unknown as Record<LogLevel, (...args: unknown[]) => unknown>;
    if (fieldsFirst) return target[level](fields, message);
    if (Object.keys(fields).length === 0) return target[level](message);
    return target[level](message, fields);
  };
}

/** @internal The queue's log; processors and supervisors take a view with their own `verbose`. */
export class Log {
  /**
   * @param logger the queue's `logger`; undefined: the console.
   * @param verbose whether debug lines are written.
   * @param secrets shared by every view: strings never written (connection passwords).
   */
  private readonly sink: Sink;

  constructor(
    private readonly logger: Logger | undefined,
    readonly verbose: boolean,
    private readonly secrets: string[] = [],
  ) {
    this.sink = logger ? loggerSink(logger) : consoleSink;
  }

  /** The same destination and secrets; debug lines as `verbose` says (a processor's or supervisor's flag). */
  withVerbose(verbose: boolean): Log {
    return new Log(this.logger, verbose, this.secrets);
  }

  /** Adds strings to mask in every line of this log and its views (a backend's connection passwords). */
  addSecrets(secrets: readonly string[]): void {
    for (const secret of secrets) if (secret.length > 0 && !this.secrets.includes(secret)) this.secrets.push(secret);
  }

  /** Activity, written only when `verbose` is set. */
  debug(message: string, fields?: LogInput): void {
    if (this.verbose) this.write('debug', message, fields);
  }

  info(message: string, fields?: LogInput): void {
    this.write('info', message, fields);
  }

  warn(message: string, fields?: LogInput): void {
    this.write('warn', message, fields);
  }

  error(message: string, fields?: LogInput): void {
    this.write('error', message, fields);
  }

  private write(level: LogLevel, message: string, fields: LogInput = {}): void {
    // A logger that throws, or returns a promise that rejects (an async transport), must not
    // change what the queue does, nor end the process with an unhandled rejection; there is
    // nowhere left to say so.
    try {
      const returned = this.sink(level, this.mask(message), this.maskFields(fields));
      if (isThenable(returned)) returned.then(undefined, ignore);
    } catch {
      // as above
    }
  }

  private mask(text: string): string {
    return maskSecrets(text, this.secrets);
  }

  private maskFields(fields: LogInput): LogFields {
    const out: LogFields = {};
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      out[key] =
        typeof value === 'string' ? this.mask(value) : value instanceof Error ? this.loggedError(value) : value;
    }
    return out;
  }

  /** An Error as a plain object every logger serializes (JSON drops an Error's own fields). */
  private loggedError(error: Error): LoggedError {
    const logged: LoggedError = { name: safeString(() => error.name) ?? 'Error', message: '' };
    logged.message = this.mask(safeString(() => error.message) ?? '');
    const stack = safeString(() => error.stack);
    if (stack !== undefined) logged.stack = this.mask(stack);
    return logged;
  }
}

/** A promise, or any object with a `then` method (a thenable). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function ignore(): void {
  // a rejected log line: see Log.write
}

/** A string property read that may throw (a hostile getter); undefined when it is not a string. */
function safeString(read: () => unknown): string | undefined {
  try {
    const value = read();
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
