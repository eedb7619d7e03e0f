/**
 * The PostgreSQL backend. Every operation is one statement (or one short transaction); SQL
 * lives in queries/ by spec area, row mapping in rows.ts. Cron schedules (cron.ts) and durable
 * waits (waits.ts) are their own stores, delegated to.
 */
import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import type {
  AddJobsInput,
  AddJobsResult,
  Backend,
  CancelResult,
  ClaimInput,
  CleanupInput,
  CompleteInput,
  CronScheduleEdit,
  CronSlot,
  EnterWaitResult,
  FailInput,
  FailResult,
  JobEdit,
  JobQuery,
  JobSelector,
  NewCronSchedule,
  NewJob,
  ReclaimInput,
  ReclaimResult,
} from '../../backend.js';
import type { ResolvedPostgresConfig } from '../../config.js';
import { DependencyError, UnsupportedOnBackendError } from '../../errors.js';
import { withStoreErrors } from '../../store-errors.js';
import type { CronScheduleRecord, CronScheduleStatus, JobEvent, JobRecord, Queryable, WaitToken } from '../../types.js';
import { poolConnection, type Connection } from './connection.js';
import { PostgresCronStore } from './cron.js';
import { JobAvailableListener } from './listener.js';
import { openDriver, type Driver } from './pool.js';
import { cascadeLevelSql } from './queries/cascade.js';
import { cleanupEventsSql, jobEventsSql } from './queries/events.js';
import { addJobsSql, getJobSql, idsByKeysSql, listJobsSql, repointDependenciesSql } from './queries/jobs.js';
import { heldJobIdsSql } from './queries/leases.js';
import { cancelJobsSql, cleanupJobsSql, editJobsSql, reclaimSql, retryJobSql } from './queries/manage.js';
import { schemaNames, type SchemaNames } from './queries/names.js';
import {
  claimJobsSql,
  completeJobsSql,
  failJobFinalSql,
  failJobForRetrySql,
  groupClaimLockSql,
  prolongJobSql,
  setOutputSql,
  setProgressSql,
} from './queries/processing.js';
import { rejectingValues } from './rejections.js';
import { postgresErrorTranslator } from './store-errors.js';
import { rowToEvent, rowToJob, toCascaded, toId, type EventRow, type JobRow } from './rows.js';
import { backendOnSearchPath } from './search-path.js';
import { PostgresWaitStore } from './waits.js';

/**
 * Creates the PostgreSQL backend. A pool built from `databaseConfig` is the library's; `pool` is
 * the caller's. Without `schema`, the backend is built for the schema the connection's
 * search_path leads to, once that is looked up (search-path.ts).
 */
export function createPostgresBackend(config: ResolvedPostgresConfig): Backend {
  const driver = openDriver(config);
  // The one place driver errors are translated: every method's failure (store-errors.ts).
  const build = (schema: string): Backend =>
    withStoreErrors<Backend>(new PostgresBackend(config, driver, schema), postgresErrorTranslator(schema, driver.pool));
  if (config.schema !== undefined) return build(config.schema);
  const onSearchPath = backendOnSearchPath({
    pool: driver.pool,
    bind: build,
    getPool: () => driver.pool,
    getRedisClient: refuseRedisClient,
    closeUnbound: async () => {
      if (driver.ownsPool) await driver.pool.end();
    },
  });
  // The schema lookup itself meets the same store errors before any schema is known.
  return withStoreErrors<Backend>(onSearchPath, postgresErrorTranslator(null, driver.pool));
}

function refuseRedisClient(): never {
  throw new UnsupportedOnBackendError('getRedisClient() is only available on the redis backend; this queue uses postgres (use getPool())');
}

type KindRow = { kind: string; id: string };
type Cascaded = { jobId: number; cascadeFrom: number }[];

class PostgresBackend implements Backend {
  private readonly pool: Pool;
  private readonly ownsPool: boolean;
  private readonly conn: Connection;
  private readonly names: SchemaNames;
  private readonly sql: ReturnType<typeof buildStatements>;
  private readonly groupLockKey: bigint;
  private readonly listener: JobAvailableListener;
  private readonly cron: PostgresCronStore;
  private readonly waits: PostgresWaitStore;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly config: ResolvedPostgresConfig,
    driver: Driver,
    schema: string,
  ) {
    this.pool = driver.pool;
    this.ownsPool = driver.ownsPool;
    const clientConfig = driver.clientConfig;
    this.conn = poolConnection(this.pool);
    this.names = schemaNames(schema);
    this.sql = buildStatements(this.names);
    this.groupLockKey = advisoryKey(`queuedev:group-claim:${schema}`);
    // Named, so operators (and tests) can tell the wake-up connection apart in pg_stat_activity.
    const listenerConfig = () => ({ ...clientConfig(), application_name: `queuedev-wake:${schema}` });
    this.listener = new JobAvailableListener(listenerConfig, this.names.channel, (m) => this.log(m));
    this.cron = new PostgresCronStore(this.conn, this.names, (tx, jobs, now) => this.insertJobs(tx, jobs, now));
    this.waits = new PostgresWaitStore(this.conn, this.names);
  }

  // §4.1

  async addJobs({ jobs, now, db }: AddJobsInput): Promise<AddJobsResult> {
    if (jobs.length === 0) return { ids: [], insertedIds: [] };
    if (db) return this.insertJobs(db, jobs, now);
    // A placeholder naming a job with an idempotency key may have to be repointed after the
    // statement (see resolveLostKeys); a transaction keeps the dependent from being claimed, or
    // seen, before that. Every other batch is one statement in autocommit: one round trip.
    const repointable = jobs.some((j) => j.dependsOnJobIds?.some((id) => id < 0 && jobs[-id - 1]!.idempotencyKey !== null));
    if (repointable) return this.conn.transaction((tx) => this.insertJobs(tx, jobs, now));
    return this.insertJobs(this.conn, jobs, now);
  }

  /** `target` is the caller's `db`, a transaction, or the pool (prepared statement). */
  private async insertJobs(target: Queryable | Connection, jobs: NewJob[], now: Date): Promise<AddJobsResult> {
    const payload = JSON.stringify(jobs.map(toInputRow));
    const values = [payload, now, this.names.channel];
    const { rows } =
      target === this.conn ? await this.conn.query(this.sql.addJobs, values, true) : await target.query(this.sql.addJobs, values);
    const result = rows as { i: number; id: string; outcome: 'inserted' | 'existing' | 'lost'; bad: BadPrerequisite[] | null }[];
    const bad = result[0]?.bad;
    if (bad) throw dependencyError(jobs, bad);

    const ids = result.map((r) => toId(r.id));
    const insertedIds = result.filter((r) => r.outcome === 'inserted').map((r) => toId(r.id));
    const lost = result.filter((r) => r.outcome === 'lost');
    if (lost.length > 0) await this.resolveLostKeys(target, jobs, lost, ids, insertedIds);
    return { ids, insertedIds };
  }

  /**
   * Off the common path: a concurrent insert committed a key this batch also used, after our
   * snapshot was taken. Read the winner's id, and repoint batch placeholders that named ours
   * (with `db`, inside the caller's transaction when there is one).
   */
  private async resolveLostKeys(
    target: Queryable,
    jobs: NewJob[],
    lost: { i: number; id: string }[],
    ids: number[],
    insertedIds: number[],
  ): Promise<void> {
    const keys = [...new Set(lost.map((r) => jobs[r.i]!.idempotencyKey!))];
    const { rows } = await target.query(this.sql.idsByKeys, [keys]);
    const winners = new Map((rows as { id: string; idempotency_key: string }[]).map((r) => [r.idempotency_key, toId(r.id)]));
    const repoint = new Map<number, number>();
    for (const r of lost) {
      const key = jobs[r.i]!.idempotencyKey!;
      const winner = winners.get(key);
      if (winner === undefined) {
        throw new Error(`Idempotency key ${JSON.stringify(key)} was taken by a concurrent insert that is gone again; retry the add`);
      }
      repoint.set(toId(r.id), winner);
      ids[r.i] = winner;
    }
    const usesPlaceholders = jobs.some((j) => j.dependsOnJobIds?.some((id) => id < 0));
    if (usesPlaceholders && insertedIds.length > 0) {
      await target.query(this.sql.repointDependencies, [insertedIds, [...repoint.keys()], [...repoint.values()]]);
    }
  }

  // §4.2

  async getJob(id: number): Promise<JobRecord | null> {
    const { rows } = await this.conn.query<JobRow>(this.sql.getJob, [id]);
    return rows[0] ? rowToJob(rows[0]) : null;
  }

  async getJobs(query: JobQuery): Promise<JobRecord[]> {
    const { text, values } = listJobsSql(this.names, query);
    const { rows } = await this.conn.query<JobRow>(text, values);
    return rows.map(rowToJob);
  }

  async getJobEvents(jobId: number): Promise<JobEvent[]> {
    const { rows } = await this.conn.query<EventRow>(this.sql.jobEvents, [jobId]);
    return rows.map(rowToEvent);
  }

  // §4.3

  async retryJob(jobId: number, now: Date): Promise<boolean> {
    const { rows } = await this.conn.query(this.sql.retryJob, [jobId, now, this.names.channel]);
    return rows.length > 0;
  }

  async cancelJobs(selector: JobSelector, now: Date): Promise<CancelResult> {
    const { text, values } = cancelJobsSql(this.names, selector, now);
    return this.conn.transaction(async (tx) => {
      const { rows } = await tx.query(text, values);
      const cancelledIds = (rows as { id: string }[]).map((r) => toId(r.id));
      return { cancelledIds, cascaded: await this.cascade(tx, cancelledIds, now) };
    });
  }

  async editJobs(selector: JobSelector, edit: JobEdit, now: Date): Promise<number[]> {
    const { text, values } = editJobsSql(this.names, selector, edit, now);
    const { rows } = await this.conn.query<{ id: string }>(text, values);
    return rows.map((r) => toId(r.id));
  }

  async cleanupOldJobs({ olderThan, batchSize }: CleanupInput): Promise<number> {
    return this.deleteInBatches(this.sql.cleanupJobs, olderThan, batchSize);
  }

  async cleanupOldJobEvents({ olderThan, batchSize }: CleanupInput): Promise<number> {
    return this.deleteInBatches(this.sql.cleanupEvents, olderThan, batchSize);
  }

  /** Batches keep each statement's locks and WAL small; loop until a batch comes back short. */
  private async deleteInBatches(text: string, olderThan: Date, batchSize: number): Promise<number> {
    let total = 0;
    for (;;) {
      const { rows } = await this.conn.query<{ n: number }>(text, [olderThan, batchSize]);
      const n = rows[0]?.n ?? 0;
      total += n;
      if (n < batchSize) return total;
    }
  }

  async reclaimStuckJobs({ maxProcessingMs, now }: ReclaimInput): Promise<ReclaimResult> {
    return this.conn.transaction(async (tx) => {
      const { rows } = await tx.query(this.sql.reclaim, [now, maxProcessingMs, now.toISOString(), this.names.channel]);
      const failedIds = idsOfKind(rows as KindRow[], 'failed');
      return {
        requeuedIds: idsOfKind(rows as KindRow[], 'requeued'),
        failedIds,
        deadLetterJobIds: idsOfKind(rows as KindRow[], 'dead_letter'),
        cascaded: await this.cascade(tx, failedIds, now),
      };
    });
  }

  /**
   * Cancels the dependents of jobs that just ended for good, level by level, inside the
   * transaction that ended them (see cascadeLevelSql for why each level is its own statement).
   * One statement per level of the dependency graph, never per job.
   */
  private async cascade(tx: Queryable, ended: number[], now: Date): Promise<Cascaded> {
    const cascaded: Cascaded = [];
    let parents = ended;
    while (parents.length > 0) {
      const { rows } = await tx.query(this.sql.cascadeLevel, [parents, now]);
      const level = toCascaded(rows as { id: string; cascade_from: string }[]);
      cascaded.push(...level);
      parents = level.map((c) => c.jobId);
    }
    return cascaded.sort((a, b) => a.jobId - b.jobId);
  }

  // §4.6 processing

  async claimJobs({ workerId, batchSize, jobTypes, groupConcurrency, now }: ClaimInput): Promise<JobRecord[]> {
    if (batchSize <= 0) return [];
    const values = [now, workerId, batchSize, jobTypes && jobTypes.length > 0 ? jobTypes : null, groupConcurrency ?? null];
    if (groupConcurrency === undefined) {
      const { rows } = await this.conn.query<JobRow>(this.sql.claimJobs, values, true);
      return rows.map(rowToJob);
    }
    // Group limits hold across processes only if claims of this schema take turns: each one
    // must count the group's processing jobs after the previous claim committed.
    return this.conn.transaction(async (tx) => {
      await tx.query(`SET LOCAL jit = off; ${groupClaimLockSql(this.groupLockKey)}`);
      const { rows } = await tx.query(this.sql.claimJobs, values);
      return (rows as JobRow[]).map(rowToJob);
    });
  }

  async completeJobs(completions: CompleteInput[], now: Date): Promise<number[]> {
    if (completions.length === 0) return [];
    const input = completions.map((c) => ({
      job_id: c.jobId,
      worker_id: c.workerId,
      has_output: c.output !== undefined,
      output: c.output === undefined ? null : c.output,
    }));
    const { rows } = await rejectingValues('the completions', () =>
      this.conn.query<{ id: string }>(this.sql.completeJobs, [JSON.stringify(input), now, this.names.channel], true),
    );
    return rows.map((r) => toId(r.id));
  }

  async failJob({ jobId, workerId, message, reason, retryAt, now }: FailInput): Promise<FailResult | null> {
    if (retryAt !== null) {
      const { rows } = await this.conn.query(
        this.sql.failJobForRetry,
        [
        jobId,
        workerId,
        message,
        reason,
        retryAt,
        now,
        now.toISOString(),
        this.names.channel,
        ],
        true,
      );
      return rows.length > 0 ? { deadLetterJobId: null, cascaded: [] } : null;
    }
    return this.conn.transaction(async (tx) => {
      const { rows } = await tx.query(this.sql.failJobFinal, [
        jobId,
        workerId,
        message,
        reason,
        now,
        now.toISOString(),
        this.names.channel,
      ]);
      if (!(rows as KindRow[]).some((r) => r.kind === 'failed')) return null;
      return {
        deadLetterJobId: idsOfKind(rows as KindRow[], 'dead_letter')[0] ?? null,
        cascaded: await this.cascade(tx, [jobId], now),
      };
    });
  }

  async prolongJob({ jobId, workerId, timeoutMs, now }: { jobId: number; workerId: string; timeoutMs: number | null; now: Date }): Promise<boolean> {
    const { rows } = await this.conn.query(this.sql.prolongJob, [jobId, workerId, now, timeoutMs]);
    return rows.length > 0;
  }

  async setProgress({ jobId, workerId, progress, now }: { jobId: number; workerId: string; progress: number; now: Date }): Promise<boolean> {
    const { rows } = await this.conn.query(this.sql.setProgress, [jobId, workerId, progress, now]);
    return rows.length > 0;
  }

  async setOutput({ jobId, workerId, output, now }: { jobId: number; workerId: string; output: unknown; now: Date }): Promise<boolean> {
    const { rows } = await this.conn.query(this.sql.setOutput, [jobId, workerId, JSON.stringify(output ?? null), now]);
    return rows.length > 0;
  }

  async heldJobIds({ workerId, jobIds }: { workerId: string; jobIds: number[] }): Promise<number[]> {
    if (jobIds.length === 0) return [];
    const { rows } = await this.conn.query<{ id: string }>(this.sql.heldJobIds, [jobIds, workerId], true);
    return rows.map((r) => toId(r.id));
  }

  // Cron schedules (SPEC §4.4)

  addCronSchedule(schedule: NewCronSchedule, now: Date): Promise<number> {
    return this.cron.addCronSchedule(schedule, now);
  }

  getCronSchedules(query: { id?: number; name?: string; status?: CronScheduleStatus }): Promise<CronScheduleRecord[]> {
    return this.cron.getCronSchedules(query);
  }

  editCronSchedule(id: number, edit: CronScheduleEdit & { status?: CronScheduleStatus }, now: Date): Promise<boolean> {
    return this.cron.editCronSchedule(id, edit, now);
  }

  removeCronSchedule(id: number): Promise<boolean> {
    return this.cron.removeCronSchedule(id);
  }

  getDueCronSchedules(now: Date, limit: number): Promise<CronScheduleRecord[]> {
    return this.cron.getDueCronSchedules(now, limit);
  }

  enqueueCronSlots(slots: CronSlot[], now: Date): Promise<{ scheduleId: number; jobId: number | null }[]> {
    return this.cron.enqueueCronSlots(slots, now);
  }

  // Durable waits and waitpoint tokens

  saveStep(input: { jobId: number; workerId: string; stepName: string; value: unknown; now: Date }): Promise<boolean> {
    return this.waits.saveStep(input);
  }

  enterWait(input: Parameters<PostgresWaitStore['enterWait']>[0]): Promise<EnterWaitResult> {
    return this.waits.enterWait(input);
  }

  createToken(input: { id: string; jobId: number | null; timeoutAt: Date | null; tags: string[]; now: Date }): Promise<void> {
    return this.waits.createToken(input);
  }

  completeToken(input: { tokenId: string; output: unknown; now: Date }): Promise<boolean> {
    return this.waits.completeToken(input);
  }

  getToken(tokenId: string): Promise<WaitToken | null> {
    return this.waits.getToken(tokenId);
  }

  expireTimedOutTokens(now: Date): Promise<number> {
    return this.waits.expireTimedOutTokens(now);
  }

  subscribeJobAvailable(listener: () => void): Promise<() => Promise<void>> {
    return this.listener.subscribe(listener);
  }

  // Drivers and lifecycle

  getPool(): Pool {
    return this.pool;
  }

  getRedisClient(): never {
    return refuseRedisClient();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.listener.close();
      if (this.ownsPool) await this.pool.end();
    })();
    return this.closing;
  }

  private log(message: string): void {
    if (this.config.verbose) console.log(`[queuedev] ${message}`);
  }
}

/** Every statement of a schema, built once per queue. */
function buildStatements(t: SchemaNames) {
  return {
    addJobs: addJobsSql(t),
    idsByKeys: idsByKeysSql(t),
    repointDependencies: repointDependenciesSql(t),
    getJob: getJobSql(t),
    jobEvents: jobEventsSql(t),
    retryJob: retryJobSql(t),
    cleanupJobs: cleanupJobsSql(t),
    cleanupEvents: cleanupEventsSql(t),
    reclaim: reclaimSql(t),
    claimJobs: claimJobsSql(t),
    completeJobs: completeJobsSql(t),
    failJobForRetry: failJobForRetrySql(t),
    failJobFinal: failJobFinalSql(t),
    cascadeLevel: cascadeLevelSql(t),
    prolongJob: prolongJobSql(t),
    setProgress: setProgressSql(t),
    setOutput: setOutputSql(t),
    heldJobIds: heldJobIdsSql(t),
  };
}

/** The row of one job in the JSON array addJobsSql reads. */
function toInputRow(job: NewJob, i: number) {
  return {
    i,
    job_type: job.jobType,
    payload: job.payload,
    max_attempts: job.maxAttempts,
    priority: job.priority,
    run_at: job.runAt.toISOString(),
    timeout_ms: job.timeoutMs,
    force_kill_on_timeout: job.forceKillOnTimeout,
    tags: job.tags,
    idempotency_key: job.idempotencyKey,
    retry_delay: job.retryDelay,
    retry_backoff: job.retryBackoff,
    retry_delay_max: job.retryDelayMax,
    dead_letter_job_type: job.deadLetterJobType,
    group_id: job.group?.id ?? null,
    group_tier: job.group?.tier ?? null,
    depends_on_job_ids: job.dependsOnJobIds,
    depends_on_tags: job.dependsOnTags,
  };
}

interface BadPrerequisite {
  id: number;
  status: string | null;
}

/** Names every rejected prerequisite and the jobs of the call that listed it. */
function dependencyError(jobs: NewJob[], bad: BadPrerequisite[]): DependencyError {
  const single = jobs.length === 1;
  const parts = bad.map(({ id, status }) => {
    const users = jobs.flatMap((j, i) => (j.dependsOnJobIds?.includes(id) ? [single ? 'dependsOn.jobIds' : `jobs[${i}].dependsOn.jobIds`] : []));
    const where = users.length > 0 ? ` (in \`${users.join('`, `')}\`)` : '';
    if (status === null) return `job ${id} does not exist${where}`;
    return `job ${id} already ended ${status === 'failed' ? 'failed with no retry left' : status} and can never complete${where}`;
  });
  const unknown = bad.filter((b) => b.status === null).map((b) => b.id);
  const lead = unknown.length > 0 ? `Unknown prerequisite job ids: ${unknown.join(', ')}. ` : '';
  return new DependencyError(`${lead}Expected \`dependsOn.jobIds\` to name jobs that can still complete: ${parts.join('; ')}. Nothing was added.`);
}

function idsOfKind(rows: KindRow[], kind: string): number[] {
  return rows.filter((r) => r.kind === kind).map((r) => toId(r.id));
}

/** A signed 64-bit advisory lock key derived from a name. */
function advisoryKey(name: string): bigint {
  return BigInt.asIntN(64, createHash('sha256').update(name).digest().readBigUInt64BE(0));
}
