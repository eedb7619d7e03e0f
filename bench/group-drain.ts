/**
 * A drain of grouped jobs on PostgreSQL: `--jobs` no-op jobs spread over `--groups` groups and
 * `--types` job types, run by one processor (groupConcurrency `--group-concurrency`, 1 unless
 * given, so every group is always full; concurrency 10, batch 10). Prints jobs per second, the
 * rows of job_queue updated per job (pg_stat_user_tables): claims, completions, and the parking
 * and putting back of the jobs a full group holds, and the CPU per job of this process and of the
 * server (as `npm run bench:compare` reads them, bench/compare/cpu.ts). `--migrations N` applies
 * only the first N migrations (e.g. 8, to measure the parking before 009_parked_group_turns).
 *
 *   npm run bench:groups -- --jobs 3000 --groups 10 --types 3
 *   npm run bench:groups -- --jobs 10000 --groups 100 --types 1 --group-concurrency 5
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { initJobQueue, migrate } from '../src/index.js';
import { countCpu } from './compare/cpu.js';
import { PG_URL } from './setup.js';

const { values: args } = parseArgs({
  options: {
    jobs: { type: 'string', default: '3000' },
    groups: { type: 'string', default: '10' },
    types: { type: 'string', default: '3' },
    migrations: { type: 'string' },
    'group-concurrency': { type: 'string', default: '1' },
  },
});
const total = Number(args.jobs);
const types = Array.from({ length: Number(args.types) }, (_, i) => `type${i}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const schema = `bench_groups_${randomBytes(4).toString('hex')}`;
await migrate({ databaseUrl: PG_URL, schema, ...(args.migrations ? { count: Number(args.migrations) } : {}) });
const pool = new pg.Pool({ connectionString: PG_URL, max: 12 });
const queue = initJobQueue({ backend: 'postgres', pool, schema });

/** Rows of job_queue updated so far (the statistics reach the view within a second). */
async function updatedRows(): Promise<number> {
  await sleep(1_500);
  const { rows } = await pool.query<{ n: string }>(
    `SELECT n_tup_upd AS n FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'job_queue'`,
    [schema],
  );
  return Number(rows[0]!.n);
}

try {
  const jobs = Array.from({ length: total }, (_, i) => ({
    jobType: types[i % types.length]!,
    payload: {},
    group: { id: `g${i % Number(args.groups)}` },
    priority: i % 5,
  }));
  for (let i = 0; i < total; i += 1_000) await queue.addJobs(jobs.slice(i, i + 1_000));
  const updatedBefore = await updatedRows();
  let done = 0;
  const handler = async () => {
    done++;
  };
  const processor = queue.createProcessor(Object.fromEntries(types.map((t) => [t, handler])), {
    groupConcurrency: Number(args['group-concurrency']),
    concurrency: 10,
    batchSize: 10,
    pollInterval: 20,
  });
  const cpu = await countCpu('postgres');
  const start = performance.now();
  processor.startInBackground();
  while (done < total) await sleep(5);
  const ms = performance.now() - start;
  const perJob = await cpu(total);
  await processor.stopAndDrain();
  const updated = (await updatedRows()) - updatedBefore;
  console.log(
    `${total} jobs, ${args.groups} groups of at most ${args['group-concurrency']} running, ${types.length} types, ` +
      `migrations: ${args.migrations ?? 'all'}: ${Math.round((total / ms) * 1_000)} jobs/s, ` +
      `${(updated / total).toFixed(2)} rows updated per job, CPU per job ${Math.round(perJob.process)} µs process + ` +
      `${perJob.store === undefined ? '?' : Math.round(perJob.store)} µs server`,
  );
} finally {
  await queue.close();
  await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
  await pool.end();
}
