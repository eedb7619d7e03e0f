/**
 * Public types of queuedev.
 *
 * Glossary
 * - job: one unit of work, a `jobType` plus a JSON `payload`, stored by a backend.
 * - backend: where jobs live: PostgreSQL (`'postgres'`, default) or Redis (`'redis'`).
 * - processor: claims due jobs and runs the handler registered for their type.
 * - claim: the atomic move of a job from pending (or a due retry or wait) to processing.
 * - attempt: one run of a handler; `attempts` counts them, `maxAttempts` caps them.
 * - dead letter: a new job of `deadLetterJobType` created when a job runs out of attempts.
 * - idempotency key: at most one job exists per key until the job is cleaned up.
 * - tag drain (`dependsOn.tags`): a job waits while any other active job carries all the tags.
 * - group: jobs sharing `group.id` are limited by `groupConcurrency` across all processors.
 * - supervisor: a maintenance loop that reclaims stuck jobs and cleans up old data.
 * - wait: a handler pauses (`waitFor`, `waitUntil`, `waitForToken`); the job is `waiting`.
 */

/** A job's lifecycle state (SPEC §3). */
export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled' | 'waiting';

export const JOB_STATUSES: readonly JobStatus[] = [
  'pending',
  'processing',
  'completed',
  'failed',
  'cancelled',
  'waiting',
];

/** Why the last attempt failed (SPEC §2.4). */
export type FailureReason = 'timeout' | 'handler_error' | 'no_handler';

/** How `tags.values` are matched (SPEC §2.7). */
export type TagQueryMode = 'exact' | 'all' | 'any' | 'none';

export const TAG_QUERY_MODES: readonly TagQueryMode[] = ['exact', 'all', 'any', 'none'];

/** Event types recorded in a job's history (SPEC §6.1). */
export type JobEventType =
  | 'added'
  | 'processing'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'retried'
  | 'edited'
  | 'prolonged'
  | 'waiting';

/** Maps job types to their payload types, for typed `addJob` and handlers. */
// `any` (not `unknown`) so that payload maps declared as interfaces are accepted too.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PayloadMap = Record<string, any>;

/** TLS material for PostgreSQL or Redis. Values starting with `file://` are read from disk. */
export interface TLSConfig {
  /**
   * CA certificate that signed the server's certificate, PEM text or `file://path`.
   * @default the system's trusted CAs
   * @example { ca: 'file:///etc/ssl/db-ca.pem' }
   */
  ca?: string;
  /**
   * Client certificate, PEM text or `file://path`, for servers that require one.
   * @default none
   * @example { cert: 'file:///etc/ssl/client.crt' }
   */
  cert?: string;
  /**
   * Client private key, PEM text or `file://path`, paired with `cert`.
   * @default none
   * @example { key: 'file:///etc/ssl/client.key' }
   */
  key?: string;
  /**
   * Verify the server certificate; turn off only for a self-signed test server.
   * @default true
   * @example { rejectUnauthorized: false }
   */
  rejectUnauthorized?: boolean;
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
  connectionString?: string;
  /**
   * Server host name.
   * @default 'localhost' (pg's default)
   * @example { host: 'db.internal' }
   */
  host?: string;
  /**
   * Server port.
   * @default 5432
   * @example { port: 6432 }
   */
  port?: number;
  /**
   * Database name.
   * @default the user name (pg's default)
   * @example { database: 'app' }
   */
  database?: string;
  /**
   * User to connect as.
   * @default the operating system user (pg's default)
   * @example { user: 'queue' }
   */
  user?: string;
  /**
   * Password of `user`.
   * @default none
   * @example { password: process.env.PGPASSWORD }
   */
  password?: string;
  /**
   * TLS settings; values starting with `file://` are read from disk.
   * @default no TLS unless the connection string asks for it
   * @example { ssl: { ca: 'file:///etc/ssl/db-ca.pem' } }
   */
  ssl?: DatabaseSSLConfig;
}

/**
 * The smallest interface the PostgreSQL backend needs from a client: `pg.Pool`, `pg.Client`
 * and a transaction client all satisfy it.
 */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
}

/*
 * The driver types below describe a `pg.Pool` and an ioredis client by the members queuedev
 * uses, instead of importing them from `pg` and `ioredis`: the published declarations then
 * type-check in a project that installed only one of the two drivers (or neither).
 */

/** A connection checked out of a {@link PostgresPool}; `pg.PoolClient` satisfies it. */
export interface PostgresPoolClient extends Queryable {
  release(err?: Error | boolean): void;
}

/**
 * A PostgreSQL connection pool: any `pg.Pool` (pg 8). Cast the result of `getPool()` or
 * `createPool()` to `pg.Pool` when you need the rest of its API.
 * @example initJobQueue({ pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) })
 */
export interface PostgresPool extends Queryable {
  connect(): Promise<PostgresPoolClient>;
  end(): Promise<void>;
}

/**
 * An ioredis client, `Redis` or `Cluster`, of ioredis 5 or 6. Cast the result of
 * `getRedisClient()` to `Redis` (or `Cluster`) when you need its commands.
 * @example initJobQueue({ backend: 'redis', client: new Redis(process.env.REDIS_URL) })
 */
export interface RedisClient {
  /** queuedev registers its Lua scripts with it (the runtime check of the `client` option). */
  defineCommand(name: string, definition: { lua: string; numberOfKeys?: number; readOnly?: boolean }): void;
  quit(): Promise<unknown>;
}

export interface PostgresQueueConfig {
  /**
   * Which store holds the queue.
   * @default 'postgres'
   * @example { backend: 'postgres', databaseConfig: { connectionString: process.env.DATABASE_URL } }
   */
  backend?: 'postgres';
  /**
   * Connection settings; the library creates and owns the pool (closed by `close()`). Give this
   * or `pool`.
   * @default none
   * @example { databaseConfig: { connectionString: process.env.DATABASE_URL } }
   */
  databaseConfig?: DatabaseConfig;
  /**
   * A caller-owned `pg.Pool`; the library never closes it. Give this or `databaseConfig`.
   * @default none
   * @example { pool: new pg.Pool({ connectionString: process.env.DATABASE_URL }) }
   */
  pool?: PostgresPool;
  /**
   * Schema holding the queue's tables (as created by `queue-cli migrate --schema`). Without it,
   * the schema where the connection's `search_path` finds the tables, looked up once.
   * @default the connection's search_path (`public` unless the connection sets another)
   * @example { schema: 'billing_queue' }
   */
  schema?: string;
  /**
   * Log queue activity to the console.
   * @default false
   * @example { verbose: true }
   */
  verbose?: boolean;
  /**
   * Time source; tests pass a controllable clock.
   * @default the system clock
   * @example { clock: new ManualClock(new Date('2030-01-01T00:00:00Z')) }
   */
  clock?: Clock;
}

/** How the queue connects to Redis when it creates its own client. */
export interface RedisConfig {
  /**
   * A Redis URL (`redis://` or `rediss://` for TLS).
   * @default none: host and port below
   * @example { url: process.env.REDIS_URL }
   */
  url?: string;
  /**
   * Server host name.
   * @default 'localhost'
   * @example { host: 'cache.internal' }
   */
  host?: string;
  /**
   * Server port.
   * @default 6379
   * @example { port: 6380 }
   */
  port?: number;
  /**
   * Password (the `AUTH` secret).
   * @default none
   * @example { password: process.env.REDIS_PASSWORD }
   */
  password?: string;
  /**
   * Database index.
   * @default 0
   * @example { db: 2 }
   */
  db?: number;
  /**
   * TLS settings; values starting with `file://` are read from disk.
   * @default no TLS unless the URL is `rediss://`
   * @example { tls: { ca: 'file:///etc/ssl/redis-ca.pem' } }
   */
  tls?: RedisTLSConfig;
  /**
   * Namespace of every key; give this or the queue's `keyPrefix`, not both.
   * @default 'dq:'
   * @example { keyPrefix: 'billing:' }
   */
  keyPrefix?: string;
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
  redisConfig?: RedisConfig;
  /**
   * A caller-owned `ioredis` client (`Redis` or `Cluster`); the library never closes it. Give
   * this or `redisConfig`.
   * @default none
   * @example { client: new Redis(process.env.REDIS_URL) }
   */
  client?: RedisClient;
  /**
   * Namespace of every key, without braces or spaces.
   * @default 'dq:'
   * @example { keyPrefix: 'billing:' }
   */
  keyPrefix?: string;
  /**
   * Log queue activity to the console.
   * @default false
   * @example { verbose: true }
   */
  verbose?: boolean;
  /**
   * Time source; tests pass a controllable clock.
   * @default the system clock
   * @example { clock: new ManualClock(new Date('2030-01-01T00:00:00Z')) }
   */
  clock?: Clock;
}

export type JobQueueConfig = PostgresQueueConfig | RedisQueueConfig;

/** A source of the current time. */
export interface Clock {
  now(): Date;
}

/** The group a job belongs to, for `groupConcurrency`. */
export interface JobGroup {
  /**
   * Jobs with the same id share the processor's `groupConcurrency` limit.
   * @example { group: { id: `customer:${customerId}` } }
   */
  id: string;
  /**
   * Reserved; has no effect.
   * @default none
   * @example { group: { id: 'customer:42', tier: 'gold' } }
   */
  tier?: string;
}

/** What a job waits for before it can run. */
export interface JobDependencies {
  /**
   * The job runs only once every listed job is completed.
   * @default none
   * @example { dependsOn: { jobIds: [importId] } }
   */
  jobIds?: number[];
  /**
   * The job waits while another active job carries every one of these tags.
   * @default none
   * @example { dependsOn: { tags: ['import:42'] } }
   */
  tags?: string[];
}

/** Input of `addJob` (SPEC §2.2). */
export interface JobOptions<P extends PayloadMap = PayloadMap, T extends keyof P & string = keyof P & string> {
  /**
   * Which handler runs the job.
   * @example { jobType: 'email' }
   */
  jobType: T;
  /**
   * The handler's input, any JSON value (stored as given).
   * @example { payload: { to: 'a@example.com' } }
   */
  payload: P[T];
  /**
   * Maximum number of attempts.
   * @default 3
   * @example { maxAttempts: 5 }
   */
  maxAttempts?: number;
  /**
   * Higher runs first.
   * @default 0
   * @example { priority: 10 }
   */
  priority?: number;
  /**
   * Earliest run time.
   * @default now
   * @example { runAt: new Date(Date.now() + 60_000) }
   */
  runAt?: Date | null;
  /**
   * Handler timeout in milliseconds.
   * @default the processor's, else unlimited
   * @example { timeoutMs: 30_000 }
   */
  timeoutMs?: number;
  /**
   * Run the handler in a worker thread and terminate it on timeout.
   * @default false
   * @example { timeoutMs: 5000, forceKillOnTimeout: true }
   */
  forceKillOnTimeout?: boolean;
  /**
   * Labels to find, filter and cancel jobs by.
   * @default []
   * @example { tags: ['user:42', 'welcome'] }
   */
  tags?: string[];
  /**
   * At most one job exists per key: adding it again returns the existing job's id.
   * @default none
   * @example { idempotencyKey: `welcome:${userId}` }
   */
  idempotencyKey?: string;
  /**
   * Base retry delay in seconds.
   * @default 60
   * @example { retryDelay: 10 }
   */
  retryDelay?: number;
  /**
   * Exponential backoff with jitter.
   * @default true
   * @example { retryDelay: 30, retryBackoff: false }
   */
  retryBackoff?: boolean;
  /**
   * Cap of the backoff delay in seconds.
   * @default none: uncapped
   * @example { retryDelayMax: 600 }
   */
  retryDelayMax?: number;
  /**
   * Job type of the dead-letter job created when attempts run out.
   * @default none: no dead-letter job
   * @example { deadLetterJobType: 'email:dead' }
   */
  deadLetterJobType?: string;
  /**
   * The group whose `groupConcurrency` limit the job counts against.
   * @default none: not limited
   * @example { group: { id: 'customer:42' } }
   */
  group?: JobGroup;
  /**
   * Jobs or tags the job waits for before it can run.
   * @default none
   * @example { dependsOn: { jobIds: [importId] } }
   */
  dependsOn?: JobDependencies;
}

/** Options of `addJob` / `addJobs` beyond the job itself (SPEC §4.1). */
export interface AddJobOptions {
  /**
   * Run the insert on this client (e.g. inside the caller's transaction). PostgreSQL only.
   * @default the queue's own pool
   * @example await queue.addJob(job, { db: transactionClient })
   */
  db?: Queryable;
}

export interface ErrorHistoryEntry {
  message: string;
  timestamp: string;
}

/** A stored job (SPEC §2.3, DETAILS "Records and names"). */
export interface JobRecord<P = unknown> {
  id: number;
  jobType: string;
  payload: P;
  status: JobStatus;
  createdAt: Date;
  updated_at: Date;
  updatedAt: Date;
  locked_at: Date | null;
  lockedAt: Date | null;
  locked_by: string | null;
  lockedBy: string | null;
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: Date | null;
  priority: number;
  runAt: Date;
  pendingReason: string | null;
  errorHistory: ErrorHistoryEntry[];
  timeoutMs: number | null;
  forceKillOnTimeout: boolean;
  failureReason: FailureReason | null;
  completedAt: Date | null;
  startedAt: Date | null;
  lastRetriedAt: Date | null;
  lastFailedAt: Date | null;
  lastCancelledAt: Date | null;
  tags: string[];
  idempotencyKey: string | null;
  progress: number | null;
  output: unknown;
  retryDelay: number | null;
  retryBackoff: boolean | null;
  retryDelayMax: number | null;
  deadLetterJobType: string | null;
  deadLetteredAt: Date | null;
  deadLetterJobId: number | null;
  group: JobGroup | null;
  dependsOnJobIds: number[] | null;
  dependsOnTags: string[] | null;
  /** When a waiting job resumes on its own (`waitFor` / `waitUntil`). */
  waitUntil: Date | null;
  /** The token a waiting job waits on. */
  waitTokenId: string | null;
  /** Results of completed `ctx.run` steps, by step name. */
  stepData: Record<string, unknown> | null;
}

/** Fields of a pending job that `editJob` can change (SPEC §2.6). */
export interface EditJobOptions<P = unknown> {
  /**
   * The new payload.
   * @default unchanged
   * @example await queue.editJob(id, { payload: { to: 'b@example.com' } })
   */
  payload?: P;
  /**
   * The new maximum number of attempts.
   * @default unchanged
   * @example await queue.editJob(id, { maxAttempts: 5 })
   */
  maxAttempts?: number;
  /**
   * The new priority; higher runs first.
   * @default unchanged
   * @example await queue.editJob(id, { priority: 10 })
   */
  priority?: number;
  /**
   * The new earliest run time; `null` means now.
   * @default unchanged
   * @example await queue.editJob(id, { runAt: null })
   */
  runAt?: Date | null;
  /**
   * The new handler timeout in milliseconds.
   * @default unchanged
   * @example await queue.editJob(id, { timeoutMs: 60_000 })
   */
  timeoutMs?: number;
  /**
   * The new tags, replacing the old ones.
   * @default unchanged
   * @example await queue.editJob(id, { tags: ['urgent'] })
   */
  tags?: string[];
  /**
   * The new base retry delay in seconds; `null` unsets it.
   * @default unchanged
   * @example await queue.editJob(id, { retryDelay: 5 })
   */
  retryDelay?: number | null;
  /**
   * Whether retries back off exponentially; `null` unsets it.
   * @default unchanged
   * @example await queue.editJob(id, { retryBackoff: false })
   */
  retryBackoff?: boolean | null;
  /**
   * The new cap of the backoff delay in seconds; `null` unsets it.
   * @default unchanged
   * @example await queue.editJob(id, { retryDelayMax: 300 })
   */
  retryDelayMax?: number | null;
  /**
   * The new dead-letter job type; `null` unsets it.
   * @default unchanged
   * @example await queue.editJob(id, { deadLetterJobType: 'email:dead' })
   */
  deadLetterJobType?: string | null;
}

/** Bounds of a `runAt` filter; every bound given must hold. */
export interface DateRange {
  /**
   * Later than this instant.
   * @default no bound
   * @example { runAt: { gt: new Date() } }
   */
  gt?: Date;
  /**
   * At or after this instant.
   * @default no bound
   * @example { runAt: { gte: new Date('2030-01-01') } }
   */
  gte?: Date;
  /**
   * Earlier than this instant.
   * @default no bound
   * @example { runAt: { lt: new Date() } }
   */
  lt?: Date;
  /**
   * At or before this instant.
   * @default no bound
   * @example { runAt: { lte: new Date('2030-01-31') } }
   */
  lte?: Date;
  /**
   * Exactly this instant.
   * @default no bound
   * @example { runAt: { eq: new Date('2030-01-01T09:00:00Z') } }
   */
  eq?: Date;
}

/** Filter of `getJobs`, `editAllPendingJobs`, `cancelAllUpcomingJobs` (SPEC §2.7). */
export interface JobFilter {
  /**
   * Only jobs of this type.
   * @default every type
   * @example await queue.getJobs({ jobType: 'email' })
   */
  jobType?: string;
  /**
   * Only jobs with this priority.
   * @default every priority
   * @example await queue.getJobs({ priority: 10 })
   */
  priority?: number;
  /**
   * Only jobs due at this instant, or within these bounds.
   * @default any time
   * @example await queue.getJobs({ runAt: { lt: new Date() } })
   */
  runAt?: Date | DateRange;
  /**
   * Only jobs whose tags match `values` by `mode` (`all` unless given).
   * @default any tags
   * @example await queue.getJobs({ tags: { values: ['user:42'], mode: 'any' } })
   */
  tags?: { values: string[]; mode?: TagQueryMode };
}

/** A history record (SPEC §2.8). */
export interface JobEvent {
  id: number;
  jobId: number;
  eventType: JobEventType;
  createdAt: Date;
  metadata: unknown;
}

/** State of a cron schedule (SPEC §3): paused schedules are skipped by automatic enqueueing. */
export type CronScheduleStatus = 'active' | 'paused';

/** Input of `addCronJob` (SPEC §2.9). */
export interface CronJobOptions<P extends PayloadMap = PayloadMap, T extends keyof P & string = keyof P & string> {
  /**
   * Unique name of the schedule.
   * @example { scheduleName: 'nightly-report' }
   */
  scheduleName: string;
  /**
   * Standard 5-field cron expression (minute hour day month weekday).
   * @example { cronExpression: '0 3 * * *' }
   */
  cronExpression: string;
  /**
   * Job type of every job the schedule creates.
   * @example { jobType: 'report' }
   */
  jobType: T;
  /**
   * Payload of every job the schedule creates.
   * @example { payload: { kind: 'daily' } }
   */
  payload: P[T];
  /**
   * IANA time zone the expression is read in.
   * @default 'UTC'
   * @example { timezone: 'Europe/Berlin' }
   */
  timezone?: string;
  /**
   * Enqueue a new instance while an earlier one is still active.
   * @default false
   * @example { allowOverlap: true }
   */
  allowOverlap?: boolean;
  /**
   * Maximum number of attempts of each job.
   * @default 3
   * @example { maxAttempts: 5 }
   */
  maxAttempts?: number;
  /**
   * Priority of each job; higher runs first.
   * @default 0
   * @example { priority: 10 }
   */
  priority?: number;
  /**
   * Handler timeout of each job in milliseconds.
   * @default unlimited
   * @example { timeoutMs: 60_000 }
   */
  timeoutMs?: number;
  /**
   * Tags of each job.
   * @default []
   * @example { tags: ['report'] }
   */
  tags?: string[];
  /**
   * Base retry delay of each job in seconds.
   * @default 60
   * @example { retryDelay: 30 }
   */
  retryDelay?: number;
  /**
   * Exponential backoff with jitter for each job.
   * @default true
   * @example { retryBackoff: false }
   */
  retryBackoff?: boolean;
  /**
   * Cap of each job's backoff delay in seconds.
   * @default none: uncapped
   * @example { retryDelayMax: 600 }
   */
  retryDelayMax?: number;
}

/** Fields `editCronJob` can change; `nextRunAt` is recomputed when the expression or zone changes. */
export type EditCronJobOptions<P = unknown> = Partial<
  Omit<CronJobOptions, 'scheduleName' | 'payload' | 'jobType'> & { payload: P }
>;

/** A stored cron schedule (DETAILS "Cron schedule record"). */
export interface CronScheduleRecord<P = unknown> {
  id: number;
  scheduleName: string;
  cronExpression: string;
  jobType: string;
  payload: P;
  timezone: string;
  allowOverlap: boolean;
  status: CronScheduleStatus;
  maxAttempts: number;
  priority: number;
  timeoutMs: number | null;
  tags: string[];
  retryDelay: number | null;
  retryBackoff: boolean | null;
  retryDelayMax: number | null;
  lastEnqueuedAt: Date | null;
  lastJobId: number | null;
  nextRunAt: Date;
  createdAt: Date;
  updatedAt: Date;
}

/** State of a waitpoint token. */
export type WaitTokenStatus = 'waiting' | 'completed' | 'timed_out';

/** Options of `createToken` (queue and handler context). */
export interface CreateTokenOptions {
  /**
   * Time out after e.g. '30s', '10m', '2h', '7d' (at most 365 days).
   * @default never
   * @example await queue.createToken({ timeout: '10m' })
   */
  timeout?: string;
  /**
   * Labels of the token.
   * @default []
   * @example await queue.createToken({ tags: ['approval'] })
   */
  tags?: string[];
}

/** A waitpoint token (DETAILS "Queue-level token operations"). */
export interface WaitToken {
  /** `wp_<uuid>` */
  id: string;
  /** The job waiting on it, once one does. */
  jobId: number | null;
  status: WaitTokenStatus;
  output: unknown;
  timeoutAt: Date | null;
  createdAt: Date;
  completedAt: Date | null;
  tags: string[];
}

/** What `ctx.waitForToken` resolves to. */
export type TokenWaitResult<T = unknown> = { ok: true; output: T } | { ok: false; error: string };
