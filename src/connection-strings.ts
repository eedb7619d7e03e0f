/**
 * Connection settings checked when the queue is made (initJobQueue, createPool, migrate() and
 * `queue-cli migrate`), so a missing or malformed one fails at once with a ConfigError naming
 * the field, the rule and the value (its password masked), instead of the driver reading it as
 * something else and failing later with an unrelated error.
 *
 * What the drivers do with a bad string, and so what is refused:
 * - pg parses a connection string as a URL relative to `postgres://base`: without a scheme,
 *   `localhost:5432/app` takes `localhost:` for its scheme and connects with pg's defaults (the
 *   local server, as the operating-system user); any other scheme (`http://`) is read as if it
 *   were PostgreSQL's; libpq's `host=... dbname=...` form becomes a database name. pg's own
 *   forms are accepted: `postgres://` and `postgresql://` URLs, a socket directory (`/var/run/postgresql app`)
 *   and `socket:` URLs.
 * - ioredis reads `redis://` and `rediss://` URLs (TLS only for a lower-case `rediss://`), a
 *   socket path (`/tmp/redis.sock`), a port number and `host:port` without a scheme; a string
 *   with any other scheme is read as a host name, and the path of a string without a scheme as
 *   a socket path (`localhost:6379/0` connects to the socket `/0`).
 */
import { expectation } from './checks.js';
import { ConfigError, describeValue } from './errors.js';

export const POSTGRES_URL_RULE = 'a PostgreSQL connection URL (postgres://user:password@host:5432/database)';
export const REDIS_URL_RULE = 'a Redis URL (redis://:password@host:6379/0, rediss:// for TLS, or a socket path)';

/** The connection settings of `databaseConfig` that say which server or database to use. */
const POSTGRES_TARGET_KEYS = ['connectionString', 'host', 'port', 'database', 'user'] as const;
/** The environment variables pg reads for the same, when the settings give none of them. */
const POSTGRES_TARGET_ENV = ['PGHOST', 'PGPORT', 'PGDATABASE', 'PGUSER'] as const;
/** The settings of `redisConfig` that say which server to use. */
const REDIS_TARGET_KEYS = ['url', 'host', 'port'] as const;

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
const ENCODE_HINT =
  'it does not parse as a URL; percent-encode any @ : / # ? in the user name and password (encodeURIComponent)';

/** `text` with the password of a URL, of a `user:password@` prefix and of `password=` masked. */
export function redactConnectionString(text: string): string {
  let redacted = text.replace(/(password=)('[^']*'|[^\s&]*)/gi, '$1[redacted]');
  const scheme = SCHEME.exec(redacted)?.[0] ?? '';
  const rest = redacted.slice(scheme.length);
  // The user information ends at the last @ (a password with an unencoded @ or / included).
  const at = rest.lastIndexOf('@');
  const colon = rest.indexOf(':');
  if (at > 0 && colon >= 0 && colon < at) redacted = `${scheme}${rest.slice(0, colon + 1)}[redacted]${rest.slice(at)}`;
  return redacted;
}

/** The value for a message: redacted, quoted and shortened as describeValue does. */
function shown(value: unknown): string {
  return describeValue(typeof value === 'string' ? redactConnectionString(value) : value);
}

/** Why `value` is not a connection string pg reads as meant; undefined when it is one. */
export function postgresUrlProblem(value: string): string | undefined {
  // pg's socket forms: a directory (optionally followed by a database name) or socket:/path.
  if (value.startsWith('/') || /^socket:/i.test(value)) return undefined;
  if (/^jdbc:/i.test(value)) return 'drop the `jdbc:` prefix: pg takes postgres://host:5432/database';
  const scheme = SCHEME.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) {
    return /^\s*\w+\s*=/.test(value)
      ? 'pg does not read libpq key=value strings; write it as a URL: postgres://user:password@host:5432/database'
      : 'it has no scheme; write postgres:// in front of it';
  }
  if (scheme !== 'postgres' && scheme !== 'postgresql')
    return `${scheme}:// is not a PostgreSQL scheme; use postgres:// (or postgresql://)`;
  return URL.canParse(value) ? undefined : ENCODE_HINT;
}

/** Why `value` is not a URL ioredis reads as meant; undefined when it is one. */
export function redisUrlProblem(value: string): string | undefined {
  if (value.startsWith('/') && !value.startsWith('//')) return undefined; // a socket path
  if (/^\d+$/.test(value)) {
    const port = Number(value);
    return port >= 1 && port <= 65535 ? undefined : 'as a port number it must be between 1 and 65535';
  }
  const scheme = SCHEME.exec(value)?.[1];
  if (scheme !== undefined) {
    const lower = scheme.toLowerCase();
    if (lower === 'unix') return 'ioredis takes a socket as its path alone: /tmp/redis.sock';
    if (lower !== 'redis' && lower !== 'rediss')
      return `${scheme}:// is not a Redis scheme; use redis:// (or rediss:// for TLS)`;
    if (lower === 'rediss' && scheme !== lower) return 'write rediss:// in lower case: ioredis turns TLS on only then';
  }
  let url: URL;
  try {
    url = new URL(scheme === undefined ? `redis:${value.startsWith('//') ? '' : '//'}${value}` : value);
  } catch {
    return ENCODE_HINT;
  }
  const path = url.pathname;
  if (path === '' || path === '/') return undefined;
  if (scheme === undefined && !value.startsWith('//'))
    return `without a scheme ioredis reads ${JSON.stringify(path)} as a socket path; write redis://${value}`;
  return /^\/\d+$/.test(path)
    ? undefined
    : `the path of a Redis URL is the database number (/0), not ${JSON.stringify(path)}`;
}

/**
 * Refuses a present but undefined setting (an unset environment variable, most of the time) and
 * a malformed connection string. `field` is what the user set: `databaseConfig.connectionString`,
 * `databaseUrl`, `PG_QUEUE_DATABASE`.
 */
export function checkPostgresConnectionString(field: string, value: unknown): string {
  return checkString(field, value, POSTGRES_URL_RULE, postgresUrlProblem);
}

export function checkRedisUrl(field: string, value: unknown): string {
  return checkString(field, value, REDIS_URL_RULE, redisUrlProblem);
}

function checkString(
  field: string,
  value: unknown,
  rule: string,
  problem: (value: string) => string | undefined,
): string {
  if (value === undefined) throw new ConfigError(missingMessage(field, rule));
  if (typeof value !== 'string') throw new ConfigError(expectation(field, rule, value));
  if (value.trim() === '') throw new ConfigError(`${expectation(field, rule, value)}: it is empty`);
  const reason = value.trim() === value ? problem(value) : 'remove the spaces around it';
  if (reason !== undefined)
    throw new ConfigError(`Expected \`${field}\` to be ${rule}, got ${shown(value)}: ${reason}`);
  return value;
}

/** The message of a setting that is present but undefined. */
export function missingMessage(field: string, rule: string): string {
  return `${expectation(field, rule, undefined)}: it is missing (is the environment variable it is read from set?)`;
}

/**
 * `databaseConfig` must say where to connect: a connection string, or at least one of host,
 * port, database and user. Without any, pg would fall back on the PG* environment variables and
 * else on the local server as the operating-system user, which is accepted only when one of
 * those variables is set; a setting given as undefined is named as the missing one.
 */
export function checkPostgresTarget(field: string, config: Record<string, unknown>, env = process.env): void {
  if (POSTGRES_TARGET_KEYS.some((key) => config[key] !== undefined)) return;
  const unset = POSTGRES_TARGET_KEYS.find((key) => Object.hasOwn(config, key));
  if (unset === 'connectionString')
    throw new ConfigError(missingMessage(`${field}.connectionString`, POSTGRES_URL_RULE));
  if (unset !== undefined) throw new ConfigError(missingMessage(`${field}.${unset}`, 'set'));
  if (POSTGRES_TARGET_ENV.some((name) => env[name])) return;
  throw new ConfigError(
    `\`${field}\` names no database: give \`${field}.connectionString\` (postgres://user:password@host:5432/database), ` +
      `or \`host\` and \`database\`. The fallback of pg (the local server, as the operating-system user) is not used ` +
      `unless one of the environment variables ${POSTGRES_TARGET_ENV.join(', ')} is set`,
  );
}

/**
 * `redisConfig` given `url`, `host` or `port` as undefined, and none of them set: the setting
 * meant to name the server is missing (ioredis would connect to localhost:6379 instead). An
 * empty `redisConfig` means that default and is accepted.
 */
export function checkRedisTarget(field: string, config: Record<string, unknown>): void {
  if (REDIS_TARGET_KEYS.some((key) => config[key] !== undefined)) return;
  const unset = REDIS_TARGET_KEYS.find((key) => Object.hasOwn(config, key));
  if (unset === 'url') throw new ConfigError(missingMessage(`${field}.url`, REDIS_URL_RULE));
  if (unset !== undefined) throw new ConfigError(missingMessage(`${field}.${unset}`, 'set'));
}
