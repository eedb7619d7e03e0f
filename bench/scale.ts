/**
 * Scale benchmark: fills a store with N jobs (a mix of types, tags, priorities, run times and
 * statuses), then times listings, look-ups and bulk operations, each a few times (median).
 * On Redis it runs a private server and records, from its SLOWLOG, the longest single call
 * made during each operation: Redis answers no other client while one call runs.
 *
 *   npm run bench:scale -- --backend redis --jobs 1000000 [--reps 5] [--port 6479]
 *
 * On PostgreSQL, `--stale-cleanup` runs the cleanups right after the reads that follow the fill,
 * before VACUUM ANALYZE (whose reads it then skips): the cleanup with stale statistics.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { initJobQueue, migrate, type JobOptions, type JobQueryFilter, type JobQueueConfig } from '../src/index.js';
import { PG_URL, type BenchBackend } from './setup.js';

const { values: args } = parseArgs({
  options: {
    backend: { type: 'string', default: 'postgres' },
    jobs: { type: 'string', default: '1000000' },
    reps: { type: 'string', default: '5' },
    port: { type: 'string', default: '6479' },
    'stale-cleanup': { type: 'boolean', default: false },
  },
});
const backend = args.backend as BenchBackend;
const N = Number(args.jobs);
const REPS = Number(args.reps);
const PAGE = 50;
/** Slow-log threshold on the private Redis server, in microseconds. */
const SLOWLOG_MICROS = 500;
const TYPES = ['email', 'report', 'sync', 'webhook'];
const HOUR = 3_600_000;

interface Store {
  config: JobQueueConfig;
  /** Bytes the jobs occupy (table and index size, or Redis used memory). */
  bytes(): Promise<number>;
  /** Longest single call since the last `mark()`, in ms, or undefined (PostgreSQL). */
  mark(): Promise<void>;
  longestCall(): Promise<number | undefined>;
  /**
   * Redis: the script calls since the last `mark()`, the commands they ran (INFO
   * commandstats counts the commands inside scripts) and the CPU time the server's main thread
   * spent meanwhile, in ms (unlike wall time, not inflated while it waits for a CPU);
   * undefined on PostgreSQL.
   */
  scriptWork(): Promise<{ calls: number; commands: number; cpuMs: number } | undefined>;
  /** PostgreSQL: VACUUM ANALYZE the tables, as autovacuum eventually does; false on Redis. */
  analyze(): Promise<boolean>;
  close(): Promise<void>;
}

async function openPostgres(): Promise<Store> {
  const schema = `scale_${randomBytes(4).toString('hex')}`;
  await migrate({ databaseUrl: PG_URL, schema });
  const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
  return {
    config: { backend: 'postgres', databaseConfig: { connectionString: PG_URL }, schema },
    bytes: async () => {
      const { rows } = await admin.query(
        `SELECT sum(pg_total_relation_size(c.oid))::bigint AS n FROM pg_class c
         JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relkind = 'r'`,
        [schema],
      );
      return Number(rows[0].n);
    },
    mark: async () => undefined,
    longestCall: async () => undefined,
    scriptWork: async () => undefined,
    analyze: async () => {
      await admin.query(`VACUUM ANALYZE "${schema}".job_queue, "${schema}".job_events`);
      return true;
    },
    close: async () => {
      await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
      await admin.end();
    },
  };
}

async function openRedis(port: number): Promise<Store> {
  const server = spawn(
    'redis-server',
    [
      ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      ...['--slowlog-log-slower-than', String(SLOWLOG_MICROS), '--slowlog-max-len', '100000'],
    ],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const admin = new Redis(url);
  admin.on('error', () => undefined); // refused until the server listens; ping below waits
  for (let i = 0; i < 50 && (await admin.ping().catch(() => '')) !== 'PONG'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const base = Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
  const cpuSeconds = async () => {
    const info = await admin.info('cpu');
    const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
    return field('used_cpu_user_main_thread') + field('used_cpu_sys_main_thread');
  };
  let cpuAtMark = 0;
  return {
    config: { backend: 'redis', redisConfig: { url, keyPrefix: 'scale:' } },
    bytes: async () => Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]) - base,
    mark: async () => {
      await admin.slowlog('RESET');
      await admin.config('RESETSTAT');
      cpuAtMark = await cpuSeconds();
    },
    longestCall: async () => {
      const entries = (await admin.slowlog('GET', -1)) as [number, number, number, string[]][];
      return entries.reduce((max, e) => Math.max(max, e[2] / 1000), 0);
    },
    scriptWork: async () => {
      const info = await admin.info('commandstats');
      let calls = 0;
      let commands = 0;
      for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
        if (m[1] === 'fcall' || m[1] === 'evalsha' || m[1] === 'eval') calls += Number(m[2]);
        else if (!['slowlog', 'config', 'info', 'ping'].includes(m[1]!)) commands += Number(m[2]);
      }
      return { calls, commands, cpuMs: ((await cpuSeconds()) - cpuAtMark) * 1000 };
    },
    analyze: async () => false,
    close: async () => {
      admin.disconnect();
      server.kill();
    },
  };
}

/** The job at index `i` of the fill: its shape depends on `i` only. */
function jobAt(i: number, now: number): JobOptions<Record<string, unknown>> {
  const tags = [`tenant:${i % 50}`, `user:${i % 10_000}`];
  if (i % 10 === 1) tags.push('batch:cancel');
  if (i % 10 === 2) tags.push('batch:edit');
  if (i % 20 === 0) {
    // Due now: the processor completes or fails these during the fill.
    return { jobType: 'work', payload: { i }, tags, maxAttempts: 1, priority: i % 3 };
  }
  return {
    jobType: TYPES[i % TYPES.length]!,
    payload: { i, to: `user${i % 10_000}@example.com` },
    tags,
    priority: i % 5,
    runAt: new Date(now + HOUR + (i % 720) * HOUR),
    ...(i % 7 === 0 ? { group: { id: `customer:${i % 1000}` } } : {}),
  };
}

const store = backend === 'redis' ? await openRedis(Number(args.port)) : await openPostgres();
const queue = initJobQueue(store.config);
const rows: string[][] = [];
const record = (name: string, ms: number, longest: number | undefined, note = '', work = '') =>
  rows.push([
    name,
    ms.toFixed(1),
    longest === undefined ? '' : longest === 0 ? '< 0.5' : longest.toFixed(1),
    work,
    note,
  ]);

/** Script calls and commands per call, as a table cell. */
async function scriptWork(): Promise<string> {
  const w = await store.scriptWork();
  if (!w || w.calls === 0) return '';
  const perCall = w.cpuMs / w.calls;
  return `${w.calls.toLocaleString('en')} × ${(w.commands / w.calls).toFixed(0)} (${perCall.toFixed(perCall < 1 ? 2 : 1)} ms)`;
}

async function timed(name: string, run: () => Promise<unknown>, reps = REPS): Promise<void> {
  const times: number[] = [];
  let longest: number | undefined;
  let note = '';
  let work = '';
  for (let r = 0; r < reps; r++) {
    await store.mark();
    const t0 = performance.now();
    const result = await run();
    times.push(performance.now() - t0);
    const l = await store.longestCall();
    if (l !== undefined) longest = Math.max(longest ?? 0, l);
    work = await scriptWork();
    note = Array.isArray(result) ? `${result.length} rows` : typeof result === 'number' ? `${result} jobs` : '';
  }
  times.sort((a, b) => a - b);
  record(name, times[Math.floor(times.length / 2)]!, longest, note, work);
  console.error(`${name}: ${times.map((t) => t.toFixed(1)).join(' ')} ms`);
}

try {
  const now = Date.now();
  const dueCount = Math.ceil(N / 20);
  let handled = 0;
  const processor = queue.createProcessor(
    {
      work: async (payload: unknown) => {
        handled++;
        if ((payload as { i: number }).i % 80 === 0) throw new Error('planned failure');
      },
    },
    { concurrency: 10, batchSize: 10, pollInterval: 100, jobType: 'work' },
  );

  // Fill: batches of 1,000, four in flight; a processor handles the due jobs meanwhile.
  await store.mark();
  const fillStart = performance.now();
  processor.startInBackground();
  const BATCH = 1000;
  let next = 0;
  const ids: number[] = [];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < N) {
        const from = next;
        next = Math.min(N, next + BATCH);
        const list = [];
        for (let i = from; i < next; i++) list.push(jobAt(i, now));
        const added = await queue.addJobs(list);
        if (from === 0) ids.push(...added);
      }
    }),
  );
  const addSeconds = (performance.now() - fillStart) / 1000;
  record(
    `fill: addJobs ${N.toLocaleString('en')} in batches of ${BATCH}`,
    addSeconds * 1000,
    await store.longestCall(),
    `${Math.round(N / addSeconds)} jobs/s`,
    await scriptWork(),
  );
  while (handled < dueCount) await new Promise((resolve) => setTimeout(resolve, 200));
  await processor.stopAndDrain();
  const bytes = await store.bytes();
  console.error(
    `filled in ${((performance.now() - fillStart) / 1000).toFixed(0)} s, ${Math.round(bytes / N)} bytes/job`,
  );

  // Bulk operations over a tenth of the jobs each (once: they change the store).
  const tenth = { values: ['batch:cancel'], mode: 'all' as const };
  await timed('cancelAllUpcomingJobs (tag, N/10 jobs)', () => queue.cancelAllUpcomingJobs({ tags: tenth }), 1);
  await timed(
    'editAllPendingJobs (tag, N/10 jobs)',
    () => queue.editAllPendingJobs({ tags: { values: ['batch:edit'] } }, { priority: 9 }),
    1,
  );

  const someId = ids[1]!;
  const processedId = ids[0]!;
  const deep = Math.floor(N * 0.9);
  // Reads right after the fill and bulk changes (on PostgreSQL: statistics not yet refreshed),
  // then, on PostgreSQL, again after VACUUM ANALYZE.
  const readAll = async (read: typeof timed) => {
    await read('getJobs() first page', () => queue.getJobs(undefined, PAGE));
    await read('getJobs status pending', () => queue.getJobsByStatus('pending', PAGE));
    await read('getJobs status completed', () => queue.getJobsByStatus('completed', PAGE));
    await read('getJobs status failed', () => queue.getJobsByStatus('failed', PAGE));
    await read('getJobs status cancelled', () => queue.getJobsByStatus('cancelled', PAGE));
    await read('getJobs { jobType }', () => queue.getJobs({ jobType: 'report' }, PAGE));
    await read('getJobs { priority }', () => queue.getJobs({ priority: 3 }, PAGE));
    await read('getJobs { runAt range }', () =>
      queue.getJobs({ runAt: { gte: new Date(now + 100 * HOUR), lt: new Date(now + 101 * HOUR) } }, PAGE),
    );
    await read('getJobs { runAt wide range }', () =>
      queue.getJobs({ runAt: { gte: new Date(now + 100 * HOUR), lt: new Date(now + 460 * HOUR) } }, PAGE),
    );
    await read('getJobs { tags any }', () =>
      queue.getJobs({ tags: { values: ['user:17', 'user:18'], mode: 'any' } }, PAGE),
    );
    await read('getJobs { tags all }', () =>
      queue.getJobs({ tags: { values: ['tenant:17', 'user:17'], mode: 'all' } }, PAGE),
    );
    await read('queryJobs { status, jobType }', () => queue.queryJobs({ status: 'pending', jobType: 'sync' }, PAGE));
    await read('getJobsByTags all', () => queue.getJobsByTags(['tenant:3', 'user:3'], 'all', PAGE));
    await read('getJobsByTags any', () => queue.getJobsByTags(['user:3', 'user:4'], 'any', PAGE));
    await read('getJobsByTags none', () => queue.getJobsByTags(['batch:cancel'], 'none', PAGE), 3);
    await read(`getJobs() offset ${deep.toLocaleString('en')}`, () => queue.getJobs(undefined, PAGE, deep), 3);
    await read(
      `getJobs status pending offset ${Math.floor(deep / 2).toLocaleString('en')}`,
      () => queue.getJobsByStatus('pending', PAGE, Math.floor(deep / 2)),
      3,
    );
    const deepPriority = Math.floor((N / 5) * 0.75);
    await read(
      `getJobs { priority } offset ${deepPriority.toLocaleString('en')}`,
      () => queue.getJobs({ priority: 3 }, PAGE, deepPriority),
      1,
    );
    await read(
      `getJobsByTags any offset ${Math.floor(N / 50).toLocaleString('en')}`,
      () => queue.getJobsByTags(['tenant:3', 'tenant:4'], 'any', PAGE, Math.floor(N / 50)),
      1,
    );
    await read('getJobCounts (the dashboard overview)', () => queue.getJobCounts());
    // The same deep pages by cursor: `after` is the job just before the page (found untimed).
    const cursorAt = async (filter: JobQueryFilter, offset: number) =>
      (await queue.queryJobs(filter, 1, offset - 1))[0]!.id;
    const deepPages: [string, JobQueryFilter, number][] = [
      ['queryJobsPage()', {}, deep],
      ['queryJobsPage { status pending }', { status: 'pending' }, Math.floor(deep / 2)],
      ['queryJobsPage { priority }', { priority: 3 }, deepPriority],
      ['queryJobsPage { tags any }', { tags: { values: ['tenant:3', 'tenant:4'], mode: 'any' } }, Math.floor(N / 50)],
    ];
    for (const [name, filter, offset] of deepPages) {
      const after = await cursorAt(filter, offset);
      await read(
        `${name} by cursor at offset ${offset.toLocaleString('en')}`,
        async () => (await queue.queryJobsPage(filter, { limit: PAGE, after })).jobs,
      );
    }
    await read('getJob', () => queue.getJob(someId));
    await read('getJobEvents (processed job)', () => queue.getJobEvents(processedId));
  };
  await readAll(timed);
  const staleCleanup = args['stale-cleanup'] && backend === 'postgres';
  if (!staleCleanup && (await store.analyze())) {
    await readAll((name, run, reps) => timed(`${name}, after VACUUM ANALYZE`, run, reps));
  }
  // One atomic batch into the full store, alone (no fill or processor running meanwhile).
  let extra = 0;
  await timed('addJobs ×1,000 into the full store', async () => {
    const from = N + extra;
    extra += BATCH;
    return queue.addJobs(Array.from({ length: BATCH }, (_, i) => jobAt(from + i, now)));
  });
  // A cancel whose every job cascades: 200 jobs with 50 dependents each.
  for (let r = 0; r < 200; r++) {
    const [root] = await queue.addJobs([
      { jobType: 'sync', payload: { r }, tags: ['cascade:root'], runAt: new Date(now + HOUR) },
    ]);
    await queue.addJobs(
      Array.from({ length: 50 }, (_, d) => ({ jobType: 'sync', payload: { r, d }, dependsOn: { jobIds: [root!] } })),
    );
  }
  await timed(
    'cancelAllUpcomingJobs (200 jobs, 50 dependents each)',
    () => queue.cancelAllUpcomingJobs({ tags: { values: ['cascade:root'] } }),
    1,
  );
  const when = staleCleanup ? ', before ANALYZE' : '';
  await timed(`cleanupOldJobs(0) (every finished job)${when}`, () => queue.cleanupOldJobs(0), 1);
  await timed(`cleanupOldJobEvents(0)${when}`, () => queue.cleanupOldJobEvents(0), 1);

  console.log(`\n${backend}, ${N.toLocaleString('en')} jobs, ${Math.round(bytes / N)} bytes per job stored`);
  console.log(
    `| operation | median ms | longest Redis call ms | script calls × commands per call (server CPU per call) | result |`,
  );
  console.log(`|---|---|---|---|---|`);
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
} finally {
  await queue.close();
  await store.close();
}
