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
  /** CA certificate, PEM text or `file://path`. */
  ca?: string;
  /** Client certificate, PEM text or `file://path`. */
  cert?: string;
  /** Client private key, PEM text or `file://path`. */
  key?: string;
  /** Verify the server certificate. @default true */
  rejectUnauthorized?: boolean;
}
export type DatabaseSSLConfig = TLSConfig;
export type RedisTLSConfig = TLSConfig;

export interface DatabaseConfig {
  connectionString?: string;
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
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
  backend?: 'postgres';
  /** Connection settings; the library creates and owns the pool (closed by `close()`). */
  databaseConfig?: DatabaseConfig;
  /** A caller-owned `pg.Pool`; the library never closes it. */
  pool?: PostgresPool;
  /**
   * Schema holding the queue's tables (as created by `queue-cli migrate --schema`). Without it,
   * the schema where the connection's `search_path` finds the tables, looked up once.
   * @default the connection's search_path (`public` unless the connection sets another)
   * @example schema: 'billing_queue'
   */
  schema?: string;
  /** Log queue activity to the console. @default false */
  verbose?: boolean;
  /** Time source; tests pass a controllable clock. @default the system clock */
  clock?: Clock;
}

export interface RedisConfig {
  url?: string;
  host?: string;
  port?: number;
  password?: string;
  db?: number;
  tls?: RedisTLSConfig;
  /** Namespace of every key. @default 'dq:' */
  keyPrefix?: string;
}

export interface RedisQueueConfig {
  backend: 'redis';
  /** Connection settings; the library creates and owns the client (closed by `close()`). */
  redisConfig?: RedisConfig;
  /** A caller-owned `ioredis` client (`Redis` or `Cluster`); the library never closes it. */
  client?: RedisClient;
  /** Key prefix used with `client`. @default 'dq:' */
  keyPrefix?: string;
  /** Log queue activity to the console. @default false */
  verbose?: boolean;
  /** Time source; tests pass a controllable clock. @default the system clock */
  clock?: Clock;
}

export type JobQueueConfig = PostgresQueueConfig | RedisQueueConfig;

/** A source of the current time. */
export interface Clock {
  now(): Date;
}

export interface JobGroup {
  /** Jobs with the same id share the processor's `groupConcurrency` limit. */
  id: string;
  /** Reserved; has no effect. */
  tier?: string;
}

export interface JobDependencies {
  /** The job runs only once every listed job is completed. */
  jobIds?: number[];
  /** The job waits while another active job carries every one of these tags. */
  tags?: string[];
}

/** Input of `addJob` (SPEC §2.2). */
export interface JobOptions<P extends PayloadMap = PayloadMap, T extends keyof P & string = keyof P & string> {
  jobType: T;
  payload: P[T];
  /** Maximum number of attempts. @default 3 */
  maxAttempts?: number;
  /** Higher runs first. @default 0 */
  priority?: number;
  /** Earliest run time. @default now */
  runAt?: Date | null;
  /** Handler timeout in milliseconds. @default the processor's, else unlimited */
  timeoutMs?: number;
  /** Run the handler in a worker thread and terminate it on timeout. @default false */
  forceKillOnTimeout?: boolean;
  tags?: string[];
  /** At most one job exists per key. */
  idempotencyKey?: string;
  /** Base retry delay in seconds. @default 60 */
  retryDelay?: number;
  /** Exponential backoff with jitter. @default true */
  retryBackoff?: boolean;
  /** Cap of the backoff delay in seconds. */
  retryDelayMax?: number;
  /** Job type of the dead-letter job created when attempts run out. */
  deadLetterJobType?: string;
  group?: JobGroup;
  dependsOn?: JobDependencies;
}

/** Options of `addJob` / `addJobs` beyond the job itself (SPEC §4.1). */
export interface AddJobOptions {
  /** Run the insert on this client (e.g. inside the caller's transaction). PostgreSQL only. */
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
  payload?: P;
  maxAttempts?: number;
  priority?: number;
  runAt?: Date | null;
  timeoutMs?: number;
  tags?: string[];
  retryDelay?: number | null;
  retryBackoff?: boolean | null;
  retryDelayMax?: number | null;
  deadLetterJobType?: string | null;
}

export interface DateRange {
  gt?: Date;
  gte?: Date;
  lt?: Date;
  lte?: Date;
  eq?: Date;
}

/** Filter of `getJobs`, `editAllPendingJobs`, `cancelAllUpcomingJobs` (SPEC §2.7). */
export interface JobFilter {
  jobType?: string;
  priority?: number;
  runAt?: Date | DateRange;
  tags?: { values: string[]; mode?: TagQueryMode };
}

/**
 * Filter of `queryJobs`: the job filter's members plus a status, all optional; members given
 * together must all match.
 * @example { status: 'failed', jobType: 'email.send' }
 */
export interface JobQueryFilter extends JobFilter {
  /**
   * Only jobs in this status; jobs in any status when omitted.
   * @example 'failed'
   */
  status?: JobStatus;
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
  /** Unique name of the schedule. */
  scheduleName: string;
  /** Standard 5-field cron expression (minute hour day month weekday). */
  cronExpression: string;
  jobType: T;
  /** Payload of every job the schedule creates. */
  payload: P[T];
  /** IANA time zone the expression is read in. @default 'UTC' */
  timezone?: string;
  /** Enqueue a new instance while an earlier one is still active. @default false */
  allowOverlap?: boolean;
  /** @default 3 */
  maxAttempts?: number;
  /** @default 0 */
  priority?: number;
  timeoutMs?: number;
  tags?: string[];
  retryDelay?: number;
  retryBackoff?: boolean;
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
  /** Time out after e.g. '30s', '10m', '2h', '7d' (at most 365 days); without it, never. */
  timeout?: string;
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
