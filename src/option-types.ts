/**
 * Public input options of queue operations: jobs (SPEC §2.2), their edits (§2.6) and filters
 * (§2.7), cron schedules (§2.9) and waitpoint tokens. Re-exported by types.ts.
 */
import type { Queryable } from './queue-config-types.js';
import type { JobRecord, JobStatus, PayloadMap, TagQueryMode } from './types.js';

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
  tier?: string | undefined;
}

/** What a job waits for before it can run. */
export interface JobDependencies {
  /**
   * The job runs only once every listed job is completed.
   * @default none
   * @example { dependsOn: { jobIds: [importId] } }
   */
  jobIds?: number[] | undefined;
  /**
   * The job waits while another active job carries every one of these tags.
   * @default none
   * @example { dependsOn: { tags: ['import:42'] } }
   */
  tags?: string[] | undefined;
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
  maxAttempts?: number | undefined;
  /**
   * Higher runs first.
   * @default 0
   * @example { priority: 10 }
   */
  priority?: number | undefined;
  /**
   * Earliest run time.
   * @default now
   * @example { runAt: new Date(Date.now() + 60_000) }
   */
  runAt?: Date | null | undefined;
  /**
   * Handler timeout in milliseconds.
   * @default the processor's, else unlimited
   * @example { timeoutMs: 30_000 }
   */
  timeoutMs?: number | undefined;
  /**
   * Run the handler in a worker thread and terminate it on timeout.
   * @default false
   * @example { timeoutMs: 5000, forceKillOnTimeout: true }
   */
  forceKillOnTimeout?: boolean | undefined;
  /**
   * Labels to find, filter and cancel jobs by.
   * @default []
   * @example { tags: ['user:42', 'welcome'] }
   */
  tags?: string[] | undefined;
  /**
   * At most one job exists per key: adding it again returns the existing job's id.
   * @default none
   * @example { idempotencyKey: `welcome:${userId}` }
   */
  idempotencyKey?: string | undefined;
  /**
   * Base retry delay in seconds.
   * @default 60
   * @example { retryDelay: 10 }
   */
  retryDelay?: number | undefined;
  /**
   * Exponential backoff with jitter.
   * @default true
   * @example { retryDelay: 30, retryBackoff: false }
   */
  retryBackoff?: boolean | undefined;
  /**
   * Cap of the backoff delay in seconds.
   * @default none: uncapped
   * @example { retryDelayMax: 600 }
   */
  retryDelayMax?: number | undefined;
  /**
   * Job type of the dead-letter job created when attempts run out.
   * @default none: no dead-letter job
   * @example { deadLetterJobType: 'email:dead' }
   */
  deadLetterJobType?: string | undefined;
  /**
   * The group whose `groupConcurrency` limit the job counts against.
   * @default none: not limited
   * @example { group: { id: 'customer:42' } }
   */
  group?: JobGroup | undefined;
  /**
   * Jobs or tags the job waits for before it can run.
   * @default none
   * @example { dependsOn: { jobIds: [importId] } }
   */
  dependsOn?: JobDependencies | undefined;
}

/** Options of `addJob` / `addJobs` beyond the job itself (SPEC §4.1). */
export interface AddJobOptions {
  /**
   * Run the insert on this client (e.g. inside the caller's transaction): a `pg` client, or on
   * PGlite the `tx` of `pglite.transaction()`. PostgreSQL only.
   * @default the queue's own pool
   * @example await queue.addJob(job, { db: transactionClient })
   */
  db?: Queryable | undefined;
}

/** Fields of a pending job that `editJob` can change (SPEC §2.6). */
export interface EditJobOptions<P = unknown> {
  /**
   * The new payload.
   * @default unchanged
   * @example await queue.editJob(id, { payload: { to: 'b@example.com' } })
   */
  payload?: P | undefined;
  /**
   * The new maximum number of attempts.
   * @default unchanged
   * @example await queue.editJob(id, { maxAttempts: 5 })
   */
  maxAttempts?: number | undefined;
  /**
   * The new priority; higher runs first.
   * @default unchanged
   * @example await queue.editJob(id, { priority: 10 })
   */
  priority?: number | undefined;
  /**
   * The new earliest run time; `null` means now.
   * @default unchanged
   * @example await queue.editJob(id, { runAt: null })
   */
  runAt?: Date | null | undefined;
  /**
   * The new handler timeout in milliseconds.
   * @default unchanged
   * @example await queue.editJob(id, { timeoutMs: 60_000 })
   */
  timeoutMs?: number | undefined;
  /**
   * The new tags, replacing the old ones.
   * @default unchanged
   * @example await queue.editJob(id, { tags: ['urgent'] })
   */
  tags?: string[] | undefined;
  /**
   * The new base retry delay in seconds; `null` unsets it.
   * @default unchanged
   * @example await queue.editJob(id, { retryDelay: 5 })
   */
  retryDelay?: number | null | undefined;
  /**
   * Whether retries back off exponentially; `null` unsets it.
   * @default unchanged
   * @example await queue.editJob(id, { retryBackoff: false })
   */
  retryBackoff?: boolean | null | undefined;
  /**
   * The new cap of the backoff delay in seconds; `null` unsets it.
   * @default unchanged
   * @example await queue.editJob(id, { retryDelayMax: 300 })
   */
  retryDelayMax?: number | null | undefined;
  /**
   * The new dead-letter job type; `null` unsets it.
   * @default unchanged
   * @example await queue.editJob(id, { deadLetterJobType: 'email:dead' })
   */
  deadLetterJobType?: string | null | undefined;
}

/** Bounds of a `runAt` filter; every bound given must hold. */
export interface DateRange {
  /**
   * Later than this instant.
   * @default no bound
   * @example { runAt: { gt: new Date() } }
   */
  gt?: Date | undefined;
  /**
   * At or after this instant.
   * @default no bound
   * @example { runAt: { gte: new Date('2030-01-01') } }
   */
  gte?: Date | undefined;
  /**
   * Earlier than this instant.
   * @default no bound
   * @example { runAt: { lt: new Date() } }
   */
  lt?: Date | undefined;
  /**
   * At or before this instant.
   * @default no bound
   * @example { runAt: { lte: new Date('2030-01-31') } }
   */
  lte?: Date | undefined;
  /**
   * Exactly this instant.
   * @default no bound
   * @example { runAt: { eq: new Date('2030-01-01T09:00:00Z') } }
   */
  eq?: Date | undefined;
}

/** Filter of `getJobs`, `editAllPendingJobs`, `cancelAllUpcomingJobs` (SPEC §2.7). */
export interface JobFilter {
  /**
   * Only jobs of this type.
   * @default every type
   * @example await queue.getJobs({ jobType: 'email' })
   */
  jobType?: string | undefined;
  /**
   * Only jobs whose type starts with this text (case-sensitive). Given with `jobType`, both
   * must match. On PostgreSQL the job types are found with one index probe per distinct type,
   * at most MAX_PREFIX_JOB_TYPES (1,000) distinct types from the prefix on in the database's
   * sort order; see docs/querying.md.
   * @default every type
   * @example await queue.getJobs({ jobTypePrefix: 'email.' })
   */
  jobTypePrefix?: string | undefined;
  /**
   * Only jobs with this priority.
   * @default every priority
   * @example await queue.getJobs({ priority: 10 })
   */
  priority?: number | undefined;
  /**
   * Only jobs due at this instant, or within these bounds.
   * @default any time
   * @example await queue.getJobs({ runAt: { lt: new Date() } })
   */
  runAt?: Date | DateRange | undefined;
  /**
   * Only jobs whose tags match `values` by `mode` (`all` unless given).
   * @default any tags
   * @example await queue.getJobs({ tags: { values: ['user:42'], mode: 'any' } })
   */
  tags?: { values: string[]; mode?: TagQueryMode | undefined } | undefined;
}

/**
 * Filter of `queryJobs`: the job filter's members plus a status, all optional; members given
 * together must all match.
 * @example { status: 'failed', jobType: 'email.send' }
 */
export interface JobQueryFilter extends JobFilter {
  /**
   * Only jobs in this status; jobs in any status when omitted.
   * @default every status
   * @example await queue.queryJobs({ status: 'failed' })
   */
  status?: JobStatus | undefined;
  /**
   * Only jobs whose payload, as JSON text, contains this text (letters A–Z in any case). A
   * bounded search: it looks at the newest PAYLOAD_SEARCH_SCAN_LIMIT (10,000) jobs that match
   * the other members and no further, so older matches are not found; narrow it with a status,
   * a type or a tag. Search for values (`alice@example.com`), not JSON punctuation: the
   * spacing and key order of the JSON text differ between backends.
   * @default no payload condition
   * @example await queue.queryJobs({ jobType: 'email.send', payloadContains: 'alice@example.com' })
   */
  payloadContains?: string | undefined;
}

/** Options of `queue.queryJobsPage()`: how many jobs, and where the page starts. */
export interface JobPageOptions {
  /**
   * The most jobs on the page, an integer from 1 up.
   * @default 100
   * @example await queue.queryJobsPage({ status: 'failed' }, { limit: 50 })
   */
  limit?: number | undefined;
  /**
   * Where the page starts: the `nextAfter` of the previous page (the id of its last job). The
   * page holds the matching jobs listed after that job, that is with a smaller id. A job id
   * (a positive integer); null or omitted for the first page.
   * @default null (the newest jobs)
   * @example await queue.queryJobsPage({ status: 'failed' }, { limit: 50, after: page.nextAfter })
   */
  after?: number | null | undefined;
}

/** A page of `queue.queryJobsPage()`. */
export interface JobPage {
  /** The matching jobs, newest first, at most `limit`. */
  jobs: JobRecord[];
  /** The `after` of the next page, or null when no matching job is left after this page. */
  nextAfter: number | null;
}

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
  timezone?: string | undefined;
  /**
   * Enqueue a new instance while an earlier one is still active.
   * @default false
   * @example { allowOverlap: true }
   */
  allowOverlap?: boolean | undefined;
  /**
   * Maximum number of attempts of each job.
   * @default 3
   * @example { maxAttempts: 5 }
   */
  maxAttempts?: number | undefined;
  /**
   * Priority of each job; higher runs first.
   * @default 0
   * @example { priority: 10 }
   */
  priority?: number | undefined;
  /**
   * Handler timeout of each job in milliseconds.
   * @default unlimited
   * @example { timeoutMs: 60_000 }
   */
  timeoutMs?: number | undefined;
  /**
   * Tags of each job.
   * @default []
   * @example { tags: ['report'] }
   */
  tags?: string[] | undefined;
  /**
   * Base retry delay of each job in seconds.
   * @default 60
   * @example { retryDelay: 30 }
   */
  retryDelay?: number | undefined;
  /**
   * Exponential backoff with jitter for each job.
   * @default true
   * @example { retryBackoff: false }
   */
  retryBackoff?: boolean | undefined;
  /**
   * Cap of each job's backoff delay in seconds.
   * @default none: uncapped
   * @example { retryDelayMax: 600 }
   */
  retryDelayMax?: number | undefined;
}

/** Fields `editCronJob` can change; `nextRunAt` is recomputed when the expression or zone changes. */
export type EditCronJobOptions<P = unknown> = {
  [K in keyof CronJobOptions as Exclude<K, 'scheduleName' | 'payload' | 'jobType'>]?: CronJobOptions[K] | undefined;
} & {
  /**
   * The payload of the jobs the schedule creates from now on.
   * @default unchanged
   * @example await queue.editCronJob(id, { payload: { kind: 'weekly' } })
   */
  payload?: P | undefined;
};

/** Options of `createToken` (queue and handler context). */
export interface CreateTokenOptions {
  /**
   * Time out after e.g. '30s', '10m', '2h', '7d' (at most 365 days).
   * @default never
   * @example await queue.createToken({ timeout: '10m' })
   */
  timeout?: string | undefined;
  /**
   * Labels of the token.
   * @default []
   * @example await queue.createToken({ tags: ['approval'] })
   */
  tags?: string[] | undefined;
}
