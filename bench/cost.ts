/**
 * Cost budget per job of queuedev: what one job costs the store when it is added with
 * `addJobs` (batches of 100), added with `addJob`, and claimed and completed by a processor
 * (batch size 10, concurrency 10; and with `claimAhead` 500, batch size 500).
 *
 * PostgreSQL: round trips (counted client-side, on a pool whose clients count their queries;
 * pg_stat_statements needs shared_preload_libraries, which a shared server may not have),
 * commits (pg_stat_database.xact_commit), rows inserted / updated (HOT or not) / deleted in the
 * queue's tables (pg_stat_user_tables), index entries written (estimated: every insert and
 * every non-HOT update adds one entry to each index of its table; partial indexes make this
 * an upper bound), WAL records (pg_stat_wal: one per heap row and per index entry written,
 * which counts what partial indexes really take) and WAL bytes (pg_current_wal_insert_lsn
 * difference); both WAL measures are server-wide, so other clients' writes inflate them: the
 * smallest of three repetitions is kept; the other measures keep the median).
 * Redis: commands per job, those run inside scripts counted separately (MONITOR on the
 * queue's database index; other clients on the same index inflate it).
 * Both: the queue's own process CPU per job (user + system), beside what the store does.
 * Storage per job: table and index bytes (PostgreSQL) or used_memory (Redis) over a stored batch;
 * on Redis also once the batch is processed (completed jobs with their history).
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import { initJobQueue, type JobQueueConfig } from '../src/index.js';
import { PG_URL, REDIS_URL, type BenchBackend, type BenchStore } from './setup.js';

export interface Cost {
  /** Per job, by measure name. */
  measures: Record<string, number>;
}
export type Phase = 'addJobs' | 'addJob' | 'process' | 'process, claimAhead';
export const PHASES: Phase[] = ['addJobs', 'addJob', 'process', 'process, claimAhead'];
/** The processor of each processing phase: the defaults of the comparison, and the claim-ahead setting. */
const PROCESSOR_OPTIONS = {
  process: { batchSize: 10, concurrency: 10 },
  'process, claimAhead': { batchSize: 500, concurrency: 10, claimAhead: 500 },
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The queue's own CPU per job: this process's user + system time over a phase, in µs. It counts
 * the queue's work (validation, encoding, the driver's parsing of replies, the processor) and
 * no server's; like any CPU time it moves with the machine's load, so compare phases of one run.
 */
const CPU = "queue's process CPU, µs";
async function processCpu(phase: () => Promise<void>): Promise<number> {
  const since = process.cpuUsage();
  await phase();
  const { user, system } = process.cpuUsage(since);
  return user + system;
}

/** A pg client that counts the statements it sends: one round trip each. */
let roundTrips = 0;
class CountingClient extends pg.Client {
  // pg.Client.query has many overloads; the counter passes every call through unchanged.
  override query = ((...args: unknown[]) => {
    roundTrips++;
    return (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
  }) as pg.Client['query'];
}

/** Runs a phase; on PostgreSQL on a fresh counting pool, ended after, so that its backends
 * flush their statistics as they exit (an idle backend may hold them back for a while). */
async function runPhase(config: JobQueueConfig, phase: Phase, jobs: number): Promise<void> {
  const pool =
    config.backend === 'postgres'
      ? new pg.Pool({ connectionString: PG_URL, Client: CountingClient, options: '-c jit=off' })
      : undefined;
  const queue = initJobQueue(
    pool && config.backend === 'postgres' ? { backend: 'postgres', pool, schema: config.schema } : config,
  );
  if (phase === 'addJobs') {
    for (let i = 0; i < jobs; i += 100) {
      await queue.addJobs(Array.from({ length: 100 }, (_, k) => ({ jobType: 'noop', payload: { i: i + k } })));
    }
  } else if (phase === 'addJob') {
    for (let i = 0; i < jobs; i++) await queue.addJob({ jobType: 'noop', payload: { i } });
  } else {
    let handled = 0;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const processor = queue.createProcessor(
      {
        noop: async () => {
          if (++handled === jobs) finished();
        },
      },
      PROCESSOR_OPTIONS[phase],
    );
    processor.startInBackground();
    await done;
    await processor.stopAndDrain();
  }
  await queue.close();
  await pool?.end();
}

async function postgresSnapshot(admin: pg.Pool, schema: string): Promise<Record<string, number>> {
  // Exiting backends flush their statistics; give them a moment.
  await sleep(1000);
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await admin.query(
    `SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database())::float8 AS commits,
            pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::float8 AS wal,
            (SELECT wal_records FROM pg_stat_wal)::float8 AS wal_records,
            COALESCE(SUM(t.n_tup_ins), 0)::float8 AS ins, COALESCE(SUM(t.n_tup_upd), 0)::float8 AS upd,
            COALESCE(SUM(t.n_tup_hot_upd), 0)::float8 AS hot, COALESCE(SUM(t.n_tup_del), 0)::float8 AS del,
            COALESCE(SUM((t.n_tup_ins + t.n_tup_upd - t.n_tup_hot_upd)
              * (SELECT count(*) FROM pg_index i WHERE i.indrelid = t.relid)), 0)::float8 AS idx
       FROM pg_stat_user_tables t WHERE t.schemaname = $1`,
    [schema],
  );
  const r = rows[0];
  return {
    'round trips': roundTrips,
    commits: r.commits,
    'rows inserted': r.ins,
    'rows updated': r.upd,
    'of which HOT': r.hot,
    'rows deleted': r.del,
    'index entries (upper bound)': r.idx,
    'WAL records': r.wal_records,
    'WAL bytes': r.wal,
  };
}

const perJob = (after: Record<string, number>, before: Record<string, number>, jobs: number) =>
  Object.fromEntries(Object.entries(after).map(([k, v]) => [k, (v - (before[k] ?? 0)) / jobs]));

/** Keeps the median of the repetitions, but the smallest WAL figures: other clients of the
 * server only ever add to them. */
const combine = (runs: Record<string, number>[]) =>
  Object.fromEntries(
    Object.keys(runs[0]!).map((k) => {
      const values = runs.map((r) => r[k]!).sort((a, b) => a - b);
      return [k, k.startsWith('WAL ') ? values[0]! : values[Math.floor(values.length / 2)]!];
    }),
  );

export async function measureCost(backend: BenchBackend, store: BenchStore, jobs: number, stored: number) {
  const result = {} as Record<Phase | 'storage', Record<string, number>>;
  const { schema, keyPrefix } = store.describe();
  if (backend === 'postgres') {
    const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
    const config: JobQueueConfig = { backend: 'postgres', databaseConfig: { connectionString: PG_URL }, schema };
    for (const phase of PHASES) {
      const runs: Record<string, number>[] = [];
      for (let rep = 0; rep < 3; rep++) {
        if (phase.startsWith('process')) await runPhase(config, 'addJobs', jobs);
        const before = await postgresSnapshot(admin, schema!);
        const cpu = await processCpu(() => runPhase(config, phase, jobs));
        runs.push({ ...perJob(await postgresSnapshot(admin, schema!), before, jobs), [CPU]: cpu / jobs });
        await store.reset();
      }
      result[phase] = combine(runs);
    }
    await runPhase(config, 'addJobs', stored);
    await admin.query(`VACUUM ANALYZE "${schema}".job_queue`);
    const { rows } = await admin.query(
      `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::float8 AS bytes
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
      [schema],
    );
    result.storage = { 'bytes on disk per stored job (tables, indexes, TOAST)': rows[0].bytes / stored };
    await store.reset();
    await admin.end();
    return result;
  }
  const database = Number(new URL(REDIS_URL).pathname.slice(1) || 0);
  const config: JobQueueConfig = { backend: 'redis', redisConfig: { url: REDIS_URL, keyPrefix } };
  const admin = new Redis(REDIS_URL);
  for (const phase of PHASES) {
    if (phase.startsWith('process')) await runPhase(config, 'addJobs', jobs);
    const counts = { client: 0, scripts: 0 };
    const monitor = await admin.monitor();
    monitor.on('monitor', (_time: string, _args: string[], source: string, db: string) => {
      if (Number(db) !== database) return;
      if (source === 'lua') counts.scripts++;
      else counts.client++;
    });
    const cpu = await processCpu(() => runPhase(config, phase, jobs));
    await sleep(200);
    monitor.disconnect();
    result[phase] = {
      'commands sent': counts.client / jobs,
      'commands inside scripts': counts.scripts / jobs,
      'commands in all': (counts.client + counts.scripts) / jobs,
      [CPU]: cpu / jobs,
    };
    await store.reset();
  }
  const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1] ?? 0);
  const before = await usedMemory();
  await runPhase(config, 'addJobs', stored);
  const added = await usedMemory();
  // The same jobs once processed: completed, with their history.
  await runPhase(config, 'process', stored);
  result.storage = {
    'used_memory bytes per stored job': (added - before) / stored,
    'used_memory bytes per completed job': ((await usedMemory()) - before) / stored,
  };
  await store.reset();
  await admin.quit();
  return result;
}
