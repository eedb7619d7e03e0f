/**
 * Configuration checks (SPEC §2.1). Everything is validated when the queue is constructed, so
 * a bad configuration fails at `initJobQueue`, not at first use: connection settings that name
 * no server (a connection string read from an unset variable) included.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  checkBoolean,
  checkIdentifier,
  checkInteger,
  checkKnownKeys,
  checkObject,
  ensure,
  fail,
  isObject,
} from './checks.js';
import {
  checkPostgresConnectionString,
  checkPostgresTarget,
  checkRedisTarget,
  checkRedisUrl,
} from './connection-strings.js';
import { ConfigError } from './errors.js';
import { DEFAULT_MAX_PAYLOAD_BYTES, MAX_PAYLOAD_BYTES_SETTING, type InputLimits } from './input-limits.js';
import { Log, checkLogger } from './log.js';
import { resolveTelemetry, type ResolvedTelemetry } from './telemetry/config.js';
import type { Pool } from 'pg';
import type { Redis } from 'ioredis';
import type {
  DatabaseConfig,
  JobQueueConfig,
  PGliteConfig,
  PGliteInstance,
  PostgresQueueConfig,
  RedisConfig,
  RedisQueueConfig,
  TLSConfig,
} from './types.js';

/** TLS options as the drivers take them (PEM text, never `file://`). */
export interface ResolvedTLS {
  ca?: string;
  cert?: string;
  key?: string;
  rejectUnauthorized: boolean;
}

/** Configuration is refused at construction with a ConfigError. */
const E = ConfigError;

/** Refuses two options that each decide the same thing. */
function notBoth(config: Record<string, unknown>, a: string, b: string, why: string): void {
  if (config[a] !== undefined && config[b] !== undefined) {
    throw new ConfigError(`Give \`${a}\` or \`${b}\`, not both: ${why}`);
  }
}

const COMMON_KEYS = ['backend', 'verbose', 'logger', 'clock', 'telemetry', 'maxPayloadBytes'];
const POSTGRES_KEYS = ['databaseConfig', 'pool', 'pglite', 'migrate', 'schema'];
const PGLITE_KEYS = ['dataDir'];
const REDIS_KEYS = ['redisConfig', 'client', 'keyPrefix'];
/**
 * A key prefix: no whitespace, and braces only around one non-empty hash tag. Keys are
 * `<prefix>{q}:<name>`; Redis Cluster hashes the first `{...}` of a key, so a prefix with a
 * tag of its own (`{billing}:`) puts the queue in that tag's slot, and any other prefix in the
 * slot of `q`. Either way every key of a queue shares one slot, as its scripts need.
 */
const KEY_PREFIX = /^[^{}\s]*(\{[^{}\s]+\}[^{}\s]*)?$/;
const TLS_KEYS = ['ca', 'cert', 'key', 'rejectUnauthorized'];

/** Each backend's options, named when given to the other backend. */
function otherBackendKeys(keys: string[], backend: 'postgres' | 'redis'): Record<string, string> {
  const hint = backend === 'redis' ? "set `backend: 'redis'` to use it" : "it does not apply to `backend: 'redis'`";
  return Object.fromEntries(keys.map((k) => [k, `\`${k}\` is an option of the ${backend} backend; ${hint}`]));
}

/** Connection settings are passed to the driver as given, so only emptiness is refused. */
function optionalString(field: string, value: unknown): void {
  if (value !== undefined) ensure(E, typeof value === 'string' && value.length > 0, field, 'a non-empty string', value);
}

function optionalPort(field: string, value: unknown): void {
  if (value !== undefined) checkInteger(E, field, value, 1, 65535, 'an integer port between 1 and 65535');
}

/** Reads `file://` values from disk (SPEC §2.1 rule 1); every other value is PEM text. */
function loadPem(field: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  ensure(E, typeof value === 'string' && value.length > 0, field, 'PEM text or a file:// path', value);
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
  const t: TLSConfig = checkObject(E, field, tls, 'an object { ca?, cert?, key?, rejectUnauthorized? }');
  checkKnownKeys(E, field, t, TLS_KEYS, `\`${field}\``);
  if (t.rejectUnauthorized !== undefined) checkBoolean(E, `${field}.rejectUnauthorized`, t.rejectUnauthorized);
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
  /** An embedded database: the caller's instance, or the settings of one the library owns. */
  pglite?: { instance: PGliteInstance } | { options: PGliteConfig };
  /** Undefined: the schema where the connection's search_path finds the queue's tables. */
  schema?: string;
  /** Apply the migrations to the schema before the first operation. */
  migrate: boolean;
  /** The queue's log: `logger` (or the console) with `verbose`. */
  log: Log;
  telemetry: ResolvedTelemetry;
  limits: InputLimits;
}

export interface ResolvedRedisConfig {
  backend: 'redis';
  redisConfig?: Omit<RedisConfig, 'tls' | 'keyPrefix'> & { tls?: ResolvedTLS };
  /** The public type is structural; the backend works with the ioredis client it is. */
  client?: Redis;
  keyPrefix: string;
  /** The queue's log: `logger` (or the console) with `verbose`. */
  log: Log;
  telemetry: ResolvedTelemetry;
  limits: InputLimits;
}

/** The options both backends take that bound one call's input (input-limits.ts). */
function resolveLimits(c: { maxPayloadBytes?: unknown }): InputLimits {
  const maxPayloadBytes =
    c.maxPayloadBytes === undefined
      ? DEFAULT_MAX_PAYLOAD_BYTES
      : checkInteger(E, 'maxPayloadBytes', c.maxPayloadBytes, 1, MAX_PAYLOAD_BYTES_SETTING);
  return { maxPayloadBytes };
}

export function resolveDatabaseConfig(
  field: string,
  value: unknown,
): NonNullable<ResolvedPostgresConfig['databaseConfig']> {
  const d: DatabaseConfig = checkObject(E, field, value, 'an object');
  checkKnownKeys(
    E,
    field,
    d,
    ['connectionString', 'host', 'port', 'database', 'user', 'password', 'ssl'],
    `\`${field}\``,
  );
  if (d.connectionString !== undefined) checkPostgresConnectionString(`${field}.connectionString`, d.connectionString);
  optionalString(`${field}.host`, d.host);
  optionalPort(`${field}.port`, d.port);
  optionalString(`${field}.database`, d.database);
  optionalString(`${field}.user`, d.user);
  if (d.password !== undefined) ensure(E, typeof d.password === 'string', `${field}.password`, 'a string', d.password);
  const ssl = resolveTLS(`${field}.ssl`, d.ssl);
  // SPEC §2.1 rule 2: pg lets an `sslmode` in the URL override the ssl object, which silently
  // drops a custom CA or rejectUnauthorized: false. Refuse the combination up front.
  if (d.connectionString && ssl && (ssl.ca !== undefined || !ssl.rejectUnauthorized)) {
    if (/[?&]sslmode=/i.test(d.connectionString)) {
      throw new ConfigError(
        `\`${field}.connectionString\` must not contain \`sslmode\` when \`${field}.ssl\` sets a custom CA or rejectUnauthorized: false; remove sslmode from the connection string`,
      );
    }
  }
  return { ...d, ssl };
}

/** A PGlite instance, told apart from an options object by the methods the backend calls. */
function isPGliteInstance(value: Record<string, unknown>): boolean {
  return ['query', 'exec', 'transaction', 'listen', 'close'].every((m) => typeof value[m] === 'function');
}

/** The `pglite` option: a caller's PGlite instance, or `{ dataDir? }` for one the library owns. */
function resolvePGlite(value: unknown): NonNullable<ResolvedPostgresConfig['pglite']> {
  const p = checkObject(E, 'pglite', value, 'a PGlite instance or an object { dataDir? }');
  if (isPGliteInstance(p)) return { instance: p as unknown as PGliteInstance };
  checkKnownKeys(E, 'pglite', p, PGLITE_KEYS, '`pglite` (a PGlite instance, or options for one)');
  const options = p as PGliteConfig;
  optionalString('pglite.dataDir', options.dataDir);
  return { options: { dataDir: options.dataDir } };
}

/** Validates a queue configuration; throws ConfigError naming the field on any problem. */
export function resolveConfig(config: unknown): ResolvedPostgresConfig | ResolvedRedisConfig {
  const c = checkObject(E, 'config', config, 'an object') as unknown as JobQueueConfig & Record<string, unknown>;
  if (c.verbose !== undefined) checkBoolean(E, 'verbose', c.verbose);
  const log = new Log(c.logger === undefined ? undefined : checkLogger(c.logger), c.verbose ?? false);
  if (c.clock !== undefined && (!isObject(c.clock) || typeof c.clock.now !== 'function')) {
    fail(E, 'clock', 'an object with a now() method', c.clock);
  }
  const limits = resolveLimits(c);
  // Whatever a JavaScript caller gave: anything but the two names is refused below.
  const backend: unknown = c.backend ?? 'postgres';
  if (backend === 'postgres') {
    const pc = c as PostgresQueueConfig & Record<string, unknown>;
    checkKnownKeys(
      E,
      '',
      pc,
      [...COMMON_KEYS, ...POSTGRES_KEYS],
      'the queue configuration',
      otherBackendKeys(REDIS_KEYS, 'redis'),
    );
    if (pc.databaseConfig === undefined && pc.pool === undefined && pc.pglite === undefined) {
      throw new ConfigError('The postgres backend needs `databaseConfig`, `pool` or `pglite`; none was given');
    }
    notBoth(pc, 'pool', 'databaseConfig', 'the queue uses the given pool, so the connection settings would be ignored');
    notBoth(pc, 'pglite', 'databaseConfig', 'each names the database the queue uses');
    notBoth(pc, 'pglite', 'pool', 'each names the database the queue uses');
    if (pc.migrate !== undefined) checkBoolean(E, 'migrate', pc.migrate);
    if (pc.pool !== undefined && (!isObject(pc.pool) || typeof (pc.pool as { query?: unknown }).query !== 'function')) {
      fail(E, 'pool', 'a pg.Pool', pc.pool);
    }
    // No schema: follow the connection's search_path (resolved by the backend at first use).
    const schema = pc.schema;
    if (schema !== undefined) checkIdentifier(E, 'schema', schema);
    const databaseConfig =
      pc.databaseConfig === undefined ? undefined : resolveDatabaseConfig('databaseConfig', pc.databaseConfig);
    if (databaseConfig !== undefined) checkPostgresTarget('databaseConfig', databaseConfig);
    return {
      backend: 'postgres',
      databaseConfig,
      pool: pc.pool as Pool | undefined,
      pglite: pc.pglite === undefined ? undefined : resolvePGlite(pc.pglite),
      schema,
      migrate: pc.migrate ?? false,
      log,
      telemetry: resolveTelemetry(pc.telemetry),
      limits,
    };
  }
  if (backend === 'redis') {
    const rc = c as RedisQueueConfig & Record<string, unknown>;
    checkKnownKeys(
      E,
      '',
      rc,
      [...COMMON_KEYS, ...REDIS_KEYS],
      'the queue configuration',
      otherBackendKeys(POSTGRES_KEYS, 'postgres'),
    );
    if (rc.redisConfig === undefined && rc.client === undefined) {
      throw new ConfigError('The redis backend needs `redisConfig` or `client`; neither was given');
    }
    notBoth(
      rc,
      'client',
      'redisConfig',
      'the queue uses the given client, so the connection settings would be ignored',
    );
    if (
      rc.client !== undefined &&
      (!isObject(rc.client) || typeof (rc.client as { defineCommand?: unknown }).defineCommand !== 'function')
    ) {
      fail(E, 'client', 'an ioredis client', rc.client);
    }
    let redisConfig: ResolvedRedisConfig['redisConfig'];
    let keyPrefix = rc.keyPrefix;
    if (rc.redisConfig !== undefined) {
      checkObject(E, 'redisConfig', rc.redisConfig, 'an object');
      checkKnownKeys(
        E,
        'redisConfig',
        rc.redisConfig,
        ['url', 'host', 'port', 'password', 'db', 'tls', 'keyPrefix'],
        '`redisConfig`',
      );
      const r = rc.redisConfig;
      if (r.keyPrefix !== undefined && rc.keyPrefix !== undefined) {
        throw new ConfigError('Give `keyPrefix` or `redisConfig.keyPrefix`, not both: they set the same prefix');
      }
      if (r.url !== undefined) checkRedisUrl('redisConfig.url', r.url);
      optionalString('redisConfig.host', r.host);
      optionalPort('redisConfig.port', r.port);
      if (r.password !== undefined)
        ensure(E, typeof r.password === 'string', 'redisConfig.password', 'a string', r.password);
      if (r.db !== undefined) checkInteger(E, 'redisConfig.db', r.db, 0, Infinity, 'an integer >= 0');
      checkRedisTarget('redisConfig', r as Record<string, unknown>);
      keyPrefix = r.keyPrefix ?? keyPrefix;
      const { tls, ...rest } = r;
      delete rest.keyPrefix;
      redisConfig = { ...rest, tls: resolveTLS('redisConfig.tls', tls) };
    }
    keyPrefix ??= 'dq:';
    if (typeof keyPrefix !== 'string' || keyPrefix.length === 0 || !KEY_PREFIX.test(keyPrefix)) {
      fail(
        E,
        'keyPrefix',
        'a non-empty string without spaces, with braces only around one non-empty Redis Cluster hash tag (`{billing}:`)',
        keyPrefix,
      );
    }
    return {
      backend: 'redis',
      redisConfig,
      client: rc.client as Redis | undefined,
      keyPrefix,
      log,
      telemetry: resolveTelemetry(rc.telemetry),
      limits,
    };
  }
  return fail(E, 'backend', "'postgres' or 'redis'", backend);
}

/** Quotes a validated identifier for SQL. Only names that passed IDENTIFIER reach here. */
export function quoteIdent(name: string): string {
  return `"${checkIdentifier(E, 'identifier', name)}"`;
}
