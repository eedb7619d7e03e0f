/**
 * Store errors at the Backend seam. Each backend wraps itself once with `withStoreErrors` and
 * its own rules, so every error leaving a Backend method is one of:
 * - the typed error of a fact the backend reported (a StoreFact: a taken name, unknown
 *   prerequisites, ...), worded by the one renderer (messages.ts);
 * - a QueueError the backend raised on purpose, as is;
 * - a typed store error built by the rules: StoreUnavailableError when the store cannot serve
 *   (down, unreachable, refusing credentials, shutting down), or a backend-specific one such as
 *   NotMigratedError; its `cause` is the driver's error, sanitised;
 * - any other driver error, sanitised.
 * Sanitised means rebuilt from its plain fields with every credential removed: ioredis attaches
 * the failed command, whose arguments for AUTH and HELLO are the password, and a driver error
 * may carry connection strings or option objects. Only strings, numbers and booleans are kept
 * (an ioredis `command` keeps its name), the known secrets and the password part of any URL are
 * masked in every string, and the cause chain is sanitised the same way.
 */
import { QueueError, StoreUnavailableError, type StoreUnavailableReason } from './errors.js';
import { renderFact } from './messages.js';
import { StoreFact, type Fact } from './store-facts.js';

/** Node socket errors, for both backends: the server is unreachable or the connection dropped. */
export const SOCKET_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

export interface StoreErrorRules {
  /** `PostgreSQL` or `Redis`, for messages. */
  store: string;
  /** Passwords of the queue's connection settings, masked wherever they appear. */
  secrets: readonly string[];
  /** Why the store cannot serve, when `err` says so; undefined for every other error. */
  unavailable(err: unknown): StoreUnavailableReason | undefined;
  /** A backend-specific typed error for `err` (already sanitised as `clean`), if any. */
  typed?(err: unknown, clean: unknown): QueueError | undefined;
  /** The fact a driver error (already sanitised) reports about the call `operation` (a Backend method), if any. */
  fact?(clean: unknown, operation: string): Fact | undefined;
}

/** Turns what a Backend method threw into what the caller sees; `operation` names the method. */
export type StoreErrorTranslator = (err: unknown, operation: string) => unknown;

const MASK = '[redacted]';
/** Fields never copied, whatever their value. */
const SECRET_FIELD = /pass|secret|token|auth|credential|connection|options|args|client|config/i;
/**
 * `scheme://user:password@` in any string. The scheme is bounded (32 characters at most): an
 * unbounded one makes each position of a long run of letters scan to its end, quadratic in the
 * text's length (a thrown 200,000-character message took minutes to mask).
 */
const URL_PASSWORD = /([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/@]*:)[^\s@/]*@/gi;
const MAX_DEPTH = 8;

/** Wraps every method of `backend`: whatever it throws or rejects with goes through `translate`. */
export function withStoreErrors<T extends object>(backend: T, translate: StoreErrorTranslator): T {
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(backend, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      let method = methods.get(property);
      if (!method) {
        method = (...args: unknown[]) => {
          let result: unknown;
          try {
            result = (value as (...a: unknown[]) => unknown).apply(target, args);
          } catch (err) {
            throw translate(err, String(property));
          }
          if (result instanceof Promise) {
            return result.catch((err: unknown) => {
              throw translate(err, String(property));
            });
          }
          return result;
        };
        methods.set(property, method);
      }
      return method;
    },
  });
}

/** The translation of one backend: typed where the rules know the error, else sanitised. */
export function storeErrorTranslator(rules: StoreErrorRules): StoreErrorTranslator {
  return (err, operation) => {
    if (err instanceof StoreFact)
      return renderFact(err.fact, err.cause === undefined ? undefined : sanitizeError(err.cause, rules.secrets));
    if (err instanceof QueueError) return err;
    const clean = sanitizeError(err, rules.secrets);
    const typed = rules.typed?.(err, clean);
    if (typed) return typed;
    const fact = rules.fact?.(clean, operation);
    if (fact) return renderFact(fact, clean);
    const reason = rules.unavailable(err);
    if (!reason) return clean;
    const detail = clean instanceof Error ? clean.message : String(clean);
    return new StoreUnavailableError(reason, unavailableMessage(rules.store, reason, detail), { cause: clean });
  };
}

function unavailableMessage(store: string, reason: StoreUnavailableReason, detail: string): string {
  switch (reason) {
    case 'connection':
      return `${store} is unavailable: could not connect, or the connection was lost (${detail}). Retry once the store is reachable again`;
    case 'server':
      return `${store} is not accepting commands right now (${detail}). Retry later`;
    case 'authentication':
      return `${store} refused the queue's credentials (${detail}). Check the user and password of the queue's connection settings`;
    case 'database-missing':
      return `${store} has no such database (${detail}). Create it, or fix the database name in the queue's connection settings`;
    case 'closed':
      return `The queue's ${store} connection is already closed (${detail}); the queue cannot be used after close()`;
  }
}

/** Every error of a chain: the error, its `cause`s and the members of an AggregateError. */
export function errorChain(err: unknown): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  const visit = (e: unknown, depth: number) => {
    if (typeof e !== 'object' || e === null || depth > MAX_DEPTH || found.includes(e as Record<string, unknown>))
      return;
    const record = e as Record<string, unknown>;
    found.push(record);
    visit(record.cause, depth + 1);
    if (Array.isArray(record.errors)) for (const member of record.errors) visit(member, depth + 1);
  };
  visit(err, 0);
  return found;
}

/** Masks the secrets and URL passwords in a string. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let masked = text.replace(URL_PASSWORD, `$1${MASK}@`);
  for (const secret of secrets) if (secret.length > 0) masked = masked.split(secret).join(MASK);
  return masked;
}

/** A copy of `err` without credentials (see the module comment); the prototype is kept. */
export function sanitizeError(err: unknown, secrets: readonly string[], depth = 0): unknown {
  if (typeof err === 'string') return maskSecrets(err, secrets);
  if (typeof err !== 'object' || err === null) return err;
  if (!(err instanceof Error) || depth > MAX_DEPTH) return new Error(maskSecrets(describeObject(err), secrets));
  const copy = Object.create(Object.getPrototypeOf(err) as object) as Error & Record<string, unknown>;
  const define = (key: string, value: unknown) =>
    Object.defineProperty(copy, key, {
      value,
      writable: true,
      configurable: true,
      enumerable: !['message', 'stack'].includes(key),
    });
  define('message', maskSecrets(err.message, secrets));
  if (err.stack !== undefined) define('stack', maskSecrets(err.stack, secrets));
  for (const [key, value] of Object.entries(err)) {
    if (key === 'cause' || key === 'errors') continue;
    if (key === 'command' && typeof value === 'object' && value !== null) {
      // ioredis: keep which command failed, never its arguments.
      const name = (value as { name?: unknown }).name;
      if (typeof name === 'string') define('command', { name });
      continue;
    }
    if (SECRET_FIELD.test(key)) continue;
    if (typeof value === 'string') define(key, maskSecrets(value, secrets));
    else if (typeof value === 'number' || typeof value === 'boolean' || value === undefined) define(key, value);
  }
  if ('cause' in err && err.cause !== undefined) define('cause', sanitizeError(err.cause, secrets, depth + 1));
  const members = (err as { errors?: unknown }).errors;
  if (Array.isArray(members))
    define(
      'errors',
      members.map((m) => sanitizeError(m, secrets, depth + 1)),
    );
  return copy;
}

function describeObject(value: object): string {
  const name = (value as { constructor?: { name?: string } }).constructor?.name;
  return `a non-Error value${name ? ` (${name})` : ''} was thrown`;
}

/** The non-empty string values among `values`: the passwords a backend masks. */
export function secretsOf(...values: unknown[]): string[] {
  return values.filter((v): v is string => typeof v === 'string' && v.length > 0);
}
