/**
 * Public configuration types of queuedev: how `initJobQueue` reaches its store (SPEC §2.1),
 * and the structural driver types the published declarations use instead of `pg` and `ioredis`.
 * Re-exported by types.ts.
 */

/** TLS material for PostgreSQL or Redis. Values starting with `file://` are read from disk. */
export interface TLSConfig {
  /**
   * CA certificate that signed the server's certificate, PEM text or `file://path`.
   * @default the system's trusted CAs
   * @example { ca: 'file:///etc/ssl/db-ca.pem' }
   */
  ca?: string | undefined;
  /**
   * Client certificate, PEM text or `file://path`, for servers that require one.
   * @default none
   * @example { cert: 'file:///etc/ssl/client.crt' }
   */
  cert?: string | undefined;
  /**
   * Client private key, PEM text or `file://path`, paired with `cert`.
   * @default none
   * @example { key: 'file:///etc/ssl/client.key' }
   */
  key?: string | undefined;
  /**
   * Verify the server certificate; turn off only for a self-signed test server.
   * @default true
   * @example { rejectUnauthorized: false }
   */
  rejectUnauthorized?: boolean | undefined;
}
export type DatabaseSSLConfig = TLSConfig;
export type RedisTLSConfig = TLSConfig;

/** How the queue connects to PostgreSQL when it creates its own pool. */
export interface DatabaseConfig {
  /**
   * A PostgreSQL connection URL; without `sslmode` when `ssl` sets a CA or turns verification off.
   * @default none: pg reads the PG* environment variables
   * @example { connectionString: process.env.DATABASE_URL }
   */
  connectionString?: string | undefined;
  /**
   * Server host name.
   * @default 'localhost' (pg's default)
   * @example { host: 'db.internal' }
   */
  host?: string | undefined;
  /**
   * Server port.
   * @default 5432
   * @example { port: 6432 }
   */
  port?: number | undefined;
  /**
   * Database name.
   * @default the user name (pg's default)
   * @example { database: 'app' }
   */
  database?: string | undefined;
  /**
   * User to connect as.
   * @default the operating system user (pg's default)
   * @example { user: 'queue' }
   */
  user?: string | undefined;
  /**
   * Password of `user`.
   * @default none
   * @example { password: process.env.PGPASSWORD }
   */
  password?: string | undefined;
  /**
   * TLS settings; values starting with `file://` are read from disk.
   * @default no TLS unless the connection string asks for it
   * @example { ssl: { ca: 'file:///etc/ssl/db-ca.pem' } }
   */
  ssl?: DatabaseSSLConfig | undefined;
}

/**
 * The smallest interface the PostgreSQL backend needs from a client: `pg.Pool`, `pg.Client`
 * and a transaction client all satisfy it.
 */
export interface Queryable {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as pg types its rows: callers of getPool().query() read their columns without a cast
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount?: number | null | undefined }>;
}

/*
 * The driver types below describe a `pg.Pool` and an ioredis client by the members queuedev
 * uses, instead of importing them from `pg` and `ioredis`: the published declarations then
 * type-check in a project that installed only one of the two drivers (or neither).
 */

/** A connection checked out of a {@link PostgresPool}; `pg.PoolClient` satisfies it. */
export interface PostgresPoolClient extends Queryable {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as pg types its rows
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
  release(err?: Error | boolean): void;
}

/**
 * A PostgreSQL connection pool: any `pg.Pool` (pg 8). Cast the result of `getPool()` or
 * `createPool()` to `pg.Pool` when you need the rest of its API.
 * @example initJobQueue({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) })
 */
export interface PostgresPool extends Queryable {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as pg types its rows
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
  connect(): Promise<PostgresPoolClient>;
  end(): Promise<void>;
}

/** Per-statement options of PGlite's `query` and `exec`, as far as queuedev passes them. */
export interface PGliteQueryOptions {
  /**
   * Parsers by type OID for this statement's rows; queuedev passes its own so rows read as pg's.
   * @default the instance's parsers
   * @example { parsers: { 20: (text) => text } }
   */
  parsers?: Record<number, (value: string) => unknown> | undefined;
}

/** What PGlite's `query` resolves with. */
export interface PGliteResults {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as PGlite types its rows
  rows: any[];
  /** Rows the statement returned or changed (its command tag). */
  rowCount?: number | undefined;
  affectedRows?: number | undefined;
}

/** The transaction object of `PGlite.transaction()`; also accepted as the `db` option of addJob. */
export interface PGliteTransaction {
  query(text: string, params?: unknown[], options?: PGliteQueryOptions): Promise<PGliteResults>;
  exec(text: string, options?: PGliteQueryOptions): Promise<PGliteResults[]>;
}

/**
 * A PGlite instance (`@electric-sql/pglite` 0.5), described by the members queuedev uses, so the
 * published declarations type-check without PGlite installed.
 * @example initJobQueue({ pglite: await PGlite.create('./queue-data'), migrate: true })
 */
export interface PGliteInstance extends PGliteTransaction {
  transaction<T>(callback: (tx: PGliteTransaction) => Promise<T>): Promise<T>;
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
  readonly closed: boolean;
  /** The `dataDir` it was created with: the queue and migrate() lock a directory on disk while they use it. */
  readonly dataDir?: string | undefined;
}

/** An embedded PGlite database the library creates and owns (closed by `close()`). */
export interface PGliteConfig {
  /**
   * Directory of the database files: created on first use and kept across restarts. Without
   * it the database lives in memory and is gone when the queue closes.
   * @default none: in memory
   * @example { dataDir: './.queue-data' }
   */
  dataDir?: string | undefined;
}

/**
 * An ioredis client, `Redis` or `Cluster`, of ioredis 5 or 6. Cast the result of
 * `getRedisClient()` to `Redis` (or `Cluster`) when you need its commands.
 * @example initJobQueue({ backend: 'redis', client: new Redis(process.env.REDIS_URL) })
 */
export interface RedisClient {
  /** queuedev registers its Lua scripts with it (the runtime check of the `client` option). */
  defineCommand(
    name: string,
    definition: { lua: string; numberOfKeys?: number | undefined; readOnly?: boolean | undefined },
  ): void;
  quit(): Promise<unknown>;
}

export interface PostgresQueueConfig {
  /**
   * Which store holds the queue.
   * @default 'postgres'
   * @example { backend: 'postgres', databaseConfig: { connectionString: process.env.DATABASE_URL } }
   */
  backend?: 'postgres' | undefined;
  /**
   * Connection settings; the library creates and owns the pool (closed by `close()`). Give this,
   * `pool` or `pglite`.
   * @default none
   * @example { databaseConfig: { connectionString: process.env.DATABASE_URL } }
   */
  databaseConfig?: DatabaseConfig | undefined;
  /**
   * A caller-owned `pg.Pool`; the library never closes it. Give this, `databaseConfig` or `pglite`.
   * @default none
   * @example { pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) }
   */
  pool?: PostgresPool | undefined;
  /**
   * An embedded PostgreSQL (PGlite, the optional peer dependency `@electric-sql/pglite`) instead
   * of a server: a caller-owned PGlite instance (never closed by the library), or `{ dataDir? }`
   * for one the library creates and closes, in memory without `dataDir`. One process only: for
   * trying the queue, tests and single-process apps; a data directory is locked while the queue
   * holds it, and a second opener gets DataDirLockedError. Give this, `databaseConfig` or `pool`.
   * @default none
   * @example { pglite: {}, migrate: true }
   */
  pglite?: PGliteInstance | PGliteConfig | undefined;
  /**
   * Apply the shipped migrations to `schema` (default `public`) before the first operation,
   * with the same runner and lock as `migrate()` and `queue-cli migrate`: safe when several
   * processes start at once. Off by default, since production deploys usually migrate once,
   * before the new version starts.
   * @default false
   * @example { databaseConfig: { connectionString: process.env.DATABASE_URL }, migrate: true }
   */
  migrate?: boolean | undefined;
  /**
   * Schema holding the queue's tables (as created by `queue-cli migrate --schema`). Without it,
   * the schema where the connection's `search_path` finds the tables, looked up once.
   * @default the connection's search_path (`public` unless the connection sets another)
   * @example { schema: 'billing_queue' }
   */
  schema?: string | undefined;
  /**
   * Write the queue's activity (jobs added, claimed, completed, failed, wake-ups) as debug
   * lines to `logger`, or to the console without one. Warnings and errors are written either way.
   * @default false
   * @example { verbose: true }
   */
  verbose?: boolean | undefined;
  /**
   * Where the library writes its log lines: any object with `debug`, `info`, `warn` and `error`
   * methods, such as a pino or winston logger or `console`. Each line is a message plus fields
   * (`jobId`, `jobType`, `workerId`, `error`, ...), passed as `(fields, message)` to pino and as
   * `(message, fields)` to any other logger. Connection passwords never appear in them.
   * @default the console, one `[queuedev] <message>` line each
   * @example { logger: pino({ level: 'debug' }), verbose: true }
   */
  logger?: Logger | undefined;
  /**
   * Time source; tests pass a controllable clock.
   * @default the system clock
   * @example { clock: new ManualClock(new Date('2030-01-01T00:00:00Z')) }
   */
  clock?: Clock | undefined;
  /**
   * OpenTelemetry spans and metrics (docs/telemetry.md). On by default when
   * `@opentelemetry/api` is installed, through the global tracer and meter providers, which
   * record nothing until an SDK is registered; `false` turns it off; an object names the
   * providers to use instead of the global ones.
   * @default true when `@opentelemetry/api` is installed, else off
   * @example { telemetry: { tracerProvider, meterProvider } }
   */
  telemetry?: boolean | TelemetryConfig | undefined;
  /**
   * Most bytes a job's payload (or a token's output) may take as JSON in UTF-8, from 1 to 256 MiB;
   * a larger one is refused with a ValidationError before anything is written. Each payload is
   * written, read by every claim and sent by listings, so large ones slow all of them
   * (docs/jobs.md "Payload size").
   * @default 1048576 (1 MiB)
   * @example { maxPayloadBytes: 256 * 1024 }
   */
  maxPayloadBytes?: number | undefined;
}

/** How the queue connects to Redis when it creates its own client. */
export interface RedisConfig {
  /**
   * A Redis URL (`redis://` or `rediss://` for TLS).
   * @default none: host and port below
   * @example { url: process.env.REDIS_URL }
   */
  url?: string | undefined;
  /**
   * Server host name.
   * @default 'localhost'
   * @example { host: 'cache.internal' }
   */
  host?: string | undefined;
  /**
   * Server port.
   * @default 6379
   * @example { port: 6380 }
   */
  port?: number | undefined;
  /**
   * Password (the `AUTH` secret).
   * @default none
   * @example { password: process.env.REDIS_PASSWORD }
   */
  password?: string | undefined;
  /**
   * Database index.
   * @default 0
   * @example { db: 2 }
   */
  db?: number | undefined;
  /**
   * TLS settings; values starting with `file://` are read from disk.
   * @default no TLS unless the URL is `rediss://`
   * @example { tls: { ca: 'file:///etc/ssl/redis-ca.pem' } }
   */
  tls?: RedisTLSConfig | undefined;
  /**
   * Namespace of every key; give this or the queue's `keyPrefix`, not both.
   * @default 'dq:'
   * @example { keyPrefix: 'billing:' }
   */
  keyPrefix?: string | undefined;
}

export interface RedisQueueConfig {
  /**
   * Which store holds the queue.
   * @example { backend: 'redis', redisConfig: { url: process.env.REDIS_URL } }
   */
  backend: 'redis';
  /**
   * Connection settings; the library creates and owns the client (closed by `close()`). Give
   * this or `client`.
   * @default none
   * @example { redisConfig: { url: process.env.REDIS_URL } }
   */
  redisConfig?: RedisConfig | undefined;
  /**
   * A caller-owned `ioredis` client (`Redis` or `Cluster`); the library never closes it. Give
   * this or `redisConfig`.
   * @default none
   * @example { client: new Redis(process.env.REDIS_URL) }
   */
  client?: RedisClient | undefined;
  /**
   * Namespace of every key, without spaces; braces only around one Redis Cluster hash tag,
   * which then decides the queue's slot (`{billing}:`), so queues spread over a cluster.
   * @default 'dq:'
   * @example { keyPrefix: '{billing}:' }
   */
  keyPrefix?: string | undefined;
  /**
   * Write the queue's activity (jobs added, claimed, completed, failed, wake-ups) as debug
   * lines to `logger`, or to the console without one. Warnings and errors are written either way.
   * @default false
   * @example { verbose: true }
   */
  verbose?: boolean | undefined;
  /**
   * Where the library writes its log lines: any object with `debug`, `info`, `warn` and `error`
   * methods, such as a pino or winston logger or `console`. Each line is a message plus fields
   * (`jobId`, `jobType`, `workerId`, `error`, ...), passed as `(fields, message)` to pino and as
   * `(message, fields)` to any other logger. Connection passwords never appear in them.
   * @default the console, one `[queuedev] <message>` line each
   * @example { logger: pino({ level: 'debug' }), verbose: true }
   */
  logger?: Logger | undefined;
  /**
   * Time source; tests pass a controllable clock.
   * @default the system clock
   * @example { clock: new ManualClock(new Date('2030-01-01T00:00:00Z')) }
   */
  clock?: Clock | undefined;
  /**
   * OpenTelemetry spans and metrics (docs/telemetry.md). On by default when
   * `@opentelemetry/api` is installed, through the global tracer and meter providers, which
   * record nothing until an SDK is registered; `false` turns it off; an object names the
   * providers to use instead of the global ones.
   * @default true when `@opentelemetry/api` is installed, else off
   * @example { telemetry: { tracerProvider, meterProvider } }
   */
  telemetry?: boolean | TelemetryConfig | undefined;
  /**
   * Most bytes a job's payload (or a token's output) may take as JSON in UTF-8, from 1 to 256 MiB;
   * a larger one is refused with a ValidationError before anything is written. Each payload is
   * written, read by every claim and sent by listings, so large ones slow all of them
   * (docs/jobs.md "Payload size").
   * @default 1048576 (1 MiB)
   * @example { maxPayloadBytes: 256 * 1024 }
   */
  maxPayloadBytes?: number | undefined;
}

/**
 * A logger the queue writes to (`logger` option): pino, winston, `console`, or any object with
 * these four methods. pino-like loggers (with `bindings()` and `levels.values`) are called
 * `(fields, message)`, others `(message, fields)`; fields are left out when there are none.
 */
export interface Logger {
  debug(...args: never[]): unknown;
  info(...args: never[]): unknown;
  warn(...args: never[]): unknown;
  error(...args: never[]): unknown;
}

/** The structured fields of a library log line; only those that apply are present. */
export interface LogFields {
  jobId?: number | undefined;
  jobIds?: number[] | undefined;
  jobType?: string | undefined;
  /** The processor's worker id. */
  workerId?: string | undefined;
  /** The error the line is about, as a plain object every logger can serialize. */
  error?: LoggedError | undefined;
  [field: string]: unknown;
}

/** An error in a log line's fields: its name, message and stack (masked like the message). */
export interface LoggedError {
  name: string;
  message: string;
  stack?: string | undefined;
}

export type JobQueueConfig = PostgresQueueConfig | RedisQueueConfig;

/**
 * The providers the `telemetry` option takes, typed by the methods the queue calls, so these
 * types do not need `@opentelemetry/api`: pass its TracerProvider and MeterProvider.
 */
export interface TelemetryConfig {
  /**
   * Where spans go.
   * @default the global tracer provider (`trace.getTracerProvider()`)
   * @example { tracerProvider: new BasicTracerProvider({ spanProcessors: [processor] }) }
   */
  tracerProvider?: { getTracer(name: string, version?: string): unknown } | undefined;
  /**
   * Where metrics go. The global one is read when the queue is created: register the SDK first.
   * @default the global meter provider (`metrics.getMeterProvider()`)
   * @example { meterProvider: new MeterProvider({ readers: [reader] }) }
   */
  meterProvider?: { getMeter(name: string, version?: string): unknown } | undefined;
}

/** A source of the current time. */
export interface Clock {
  now(): Date;
}
