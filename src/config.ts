/**
 * Configuration checks (SPEC §2.1). Everything is validated when the queue is constructed, so
 * a bad configuration fails at `initJobQueue`, not at first use.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, describeValue } from './errors.js';
import { requireKnownConfigKeys } from './option-keys.js';
import type { Pool } from 'pg';
import type { Redis } from 'ioredis';
import type { DatabaseConfig, JobQueueConfig, PostgresQueueConfig, RedisConfig, RedisQueueConfig, TLSConfig } from './types.js';

/** TLS options as the drivers take them (PEM text, never `file://`). */
export interface ResolvedTLS {
  ca?: string;
  cert?: string;
  key?: string;
  rejectUnauthorized: boolean;
}

/** A plain PostgreSQL identifier, the only kind of schema name the library builds SQL with. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

function bad(field: string, rule: string, value: unknown): never {
  throw new ConfigError(`Expected \`${field}\` to be ${rule}, got ${describeValue(value)}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Refuses two options that each decide the same thing. */
function notBoth(config: Record<string, unknown>, a: string, b: string, why: string): void {
  if (config[a] !== undefined && config[b] !== undefined) {
    throw new ConfigError(`Give \`${a}\` or \`${b}\`, not both: ${why}`);
  }
}

const COMMON_KEYS = ['backend', 'verbose', 'clock'];
const POSTGRES_KEYS = ['databaseConfig', 'pool', 'schema'];
const REDIS_KEYS = ['redisConfig', 'client', 'keyPrefix'];
const TLS_KEYS = ['ca', 'cert', 'key', 'rejectUnauthorized'];

/** Each backend's options, named when given to the other backend. */
function otherBackendKeys(keys: string[], backend: 'postgres' | 'redis'): Record<string, string> {
  const hint = backend === 'redis' ? "set `backend: 'redis'` to use it" : "it does not apply to `backend: 'redis'`";
  return Object.fromEntries(keys.map((k) => [k, `\`${k}\` is an option of the ${backend} backend; ${hint}`]));
}

function optionalString(field: string, value: unknown): void {
  if (value !== undefined && (typeof value !== 'string' || value.length === 0)) bad(field, 'a non-empty string', value);
}

function optionalPort(field: string, value: unknown): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65535)) {
    bad(field, 'an integer port between 1 and 65535', value);
  }
}

/** Reads `file://` values from disk (SPEC §2.1 rule 1); every other value is PEM text. */
function loadPem(field: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0) bad(field, 'PEM text or a file:// path', value);
  if (!value.startsWith('file://')) return value;
  let path: string;
  try {
    path = fileURLToPath(value);
  } catch {
    path = value.slice('file://'.length);
  }
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`Could not read \`${field}\` from ${value}: ${(err as Error).message}`, { cause: err });
  }
}

export function resolveTLS(field: string, tls: unknown): ResolvedTLS | undefined {
  if (tls === undefined) return undefined;
  if (!isObject(tls)) bad(field, 'an object { ca?, cert?, key?, rejectUnauthorized? }', tls);
  requireKnownConfigKeys(field, tls, TLS_KEYS, `\`${field}\``);
  const t = tls as TLSConfig;
  if (t.rejectUnauthorized !== undefined && typeof t.rejectUnauthorized !== 'boolean') {
    bad(`${field}.rejectUnauthorized`, 'a boolean', t.rejectUnauthorized);
  }
  return {
    ca: loadPem(`${field}.ca`, t.ca),
    cert: loadPem(`${field}.cert`, t.cert),
    key: loadPem(`${field}.key`, t.key),
    rejectUnauthorized: t.rejectUnauthorized ?? true,
  };
}

export interface ResolvedPostgresConfig {
  backend: 'postgres';
  databaseConfig?: Omit<DatabaseConfig, 'ssl'> & { ssl?: ResolvedTLS };
  /** The public type is structural; the backend works with the `pg.Pool` it is. */
  pool?: Pool;
  /** Undefined: the schema where the connection's search_path finds the queue's tables. */
  schema?: string;
  verbose: boolean;
}

export interface ResolvedRedisConfig {
  backend: 'redis';
  redisConfig?: Omit<RedisConfig, 'tls' | 'keyPrefix'> & { tls?: ResolvedTLS };
  /** The public type is structural; the backend works with the ioredis client it is. */
  client?: Redis;
  keyPrefix: string;
  verbose: boolean;
}

export function resolveDatabaseConfig(field: string, value: unknown): NonNullable<ResolvedPostgresConfig['databaseConfig']> {
  if (!isObject(value)) bad(field, 'an object', value);
  requireKnownConfigKeys(field, value, ['connectionString', 'host', 'port', 'database', 'user', 'password', 'ssl'], `\`${field}\``);
  const d = value as DatabaseConfig;
  optionalString(`${field}.connectionString`, d.connectionString);
  optionalString(`${field}.host`, d.host);
  optionalPort(`${field}.port`, d.port);
  optionalString(`${field}.database`, d.database);
  optionalString(`${field}.user`, d.user);
  if (d.password !== undefined && typeof d.password !== 'string') bad(`${field}.password`, 'a string', d.password);
  const ssl = resolveTLS(`${field}.ssl`, d.ssl);
  // SPEC §2.1 rule 2: pg lets an `sslmode` in the URL override the ssl object, which silently
  // drops a custom CA or rejectUnauthorized: false. Refuse the combination up front.
  if (d.connectionString && ssl && (ssl.ca !== undefined || ssl.rejectUnauthorized === false)) {
    if (/[?&]sslmode=/i.test(d.connectionString)) {
      throw new ConfigError(
        `\`${field}.connectionString\` must not contain \`sslmode\` when \`${field}.ssl\` sets a custom CA or rejectUnauthorized: false; remove sslmode from the connection string`,
      );
    }
  }
  return { ...d, ssl };
}

/** Validates a queue configuration; throws ConfigError naming the field on any problem. */
export function resolveConfig(config: unknown): ResolvedPostgresConfig | ResolvedRedisConfig {
  if (!isObject(config)) bad('config', 'an object', config);
  const c = config as unknown as JobQueueConfig & Record<string, unknown>;
  if (c.verbose !== undefined && typeof c.verbose !== 'boolean') bad('verbose', 'a boolean', c.verbose);
  if (c.clock !== undefined && (!isObject(c.clock) || typeof c.clock.now !== 'function')) {
    bad('clock', 'an object with a now() method', c.clock);
  }
  const backend = c.backend ?? 'postgres';
  if (backend === 'postgres') {
    const pc = c as PostgresQueueConfig & Record<string, unknown>;
    requireKnownConfigKeys('', pc, [...COMMON_KEYS, ...POSTGRES_KEYS], 'the queue configuration', otherBackendKeys(REDIS_KEYS, 'redis'));
    if (pc.databaseConfig === undefined && pc.pool === undefined) {
      throw new ConfigError('The postgres backend needs `databaseConfig` or `pool`; neither was given');
    }
    notBoth(pc, 'pool', 'databaseConfig', 'the queue uses the given pool, so the connection settings would be ignored');
    if (pc.pool !== undefined && (!isObject(pc.pool) || typeof (pc.pool as { query?: unknown }).query !== 'function')) {
      bad('pool', 'a pg.Pool', pc.pool);
    }
    // No schema: follow the connection's search_path (resolved by the backend at first use).
    const schema = pc.schema;
    if (schema !== undefined && (typeof schema !== 'string' || !IDENTIFIER.test(schema))) {
      bad('schema', 'a PostgreSQL identifier (letters, digits and _, not starting with a digit, at most 63)', schema);
    }
    return {
      backend: 'postgres',
      databaseConfig: pc.databaseConfig === undefined ? undefined : resolveDatabaseConfig('databaseConfig', pc.databaseConfig),
      pool: pc.pool as Pool | undefined,
      schema,
      verbose: pc.verbose ?? false,
    };
  }
  if (backend === 'redis') {
    const rc = c as RedisQueueConfig & Record<string, unknown>;
    requireKnownConfigKeys('', rc, [...COMMON_KEYS, ...REDIS_KEYS], 'the queue configuration', otherBackendKeys(POSTGRES_KEYS, 'postgres'));
    if (rc.redisConfig === undefined && rc.client === undefined) {
      throw new ConfigError('The redis backend needs `redisConfig` or `client`; neither was given');
    }
    notBoth(rc, 'client', 'redisConfig', 'the queue uses the given client, so the connection settings would be ignored');
    if (rc.client !== undefined && (!isObject(rc.client) || typeof (rc.client as { defineCommand?: unknown }).defineCommand !== 'function')) {
      bad('client', 'an ioredis client', rc.client);
    }
    let redisConfig: ResolvedRedisConfig['redisConfig'];
    let keyPrefix = rc.keyPrefix;
    if (rc.redisConfig !== undefined) {
      if (!isObject(rc.redisConfig)) bad('redisConfig', 'an object', rc.redisConfig);
      requireKnownConfigKeys('redisConfig', rc.redisConfig, ['url', 'host', 'port', 'password', 'db', 'tls', 'keyPrefix'], '`redisConfig`');
      const r = rc.redisConfig as RedisConfig;
      if (r.keyPrefix !== undefined && rc.keyPrefix !== undefined) {
        throw new ConfigError('Give `keyPrefix` or `redisConfig.keyPrefix`, not both: they set the same prefix');
      }
      optionalString('redisConfig.url', r.url);
      optionalString('redisConfig.host', r.host);
      optionalPort('redisConfig.port', r.port);
      if (r.password !== undefined && typeof r.password !== 'string') bad('redisConfig.password', 'a string', r.password);
      if (r.db !== undefined && (typeof r.db !== 'number' || !Number.isInteger(r.db) || r.db < 0)) {
        bad('redisConfig.db', 'an integer >= 0', r.db);
      }
      keyPrefix = r.keyPrefix ?? keyPrefix;
      const { keyPrefix: _ignored, tls, ...rest } = r;
      redisConfig = { ...rest, tls: resolveTLS('redisConfig.tls', tls) };
    }
    keyPrefix ??= 'dq:';
    if (typeof keyPrefix !== 'string' || keyPrefix.length === 0 || /[{}\s]/.test(keyPrefix)) {
      bad('keyPrefix', 'a non-empty string without braces or spaces (the braces mark the Redis Cluster hash tag)', keyPrefix);
    }
    return { backend: 'redis', redisConfig, client: rc.client as Redis | undefined, keyPrefix, verbose: rc.verbose ?? false };
  }
  return bad('backend', "'postgres' or 'redis'", backend);
}

/** Quotes a validated identifier for SQL. Only names that passed IDENTIFIER reach here. */
export function quoteIdent(name: string): string {
  if (!IDENTIFIER.test(name)) throw new ConfigError(`Refusing to use ${describeValue(name)} as a SQL identifier`);
  return `"${name}"`;
}
