/**
 * What bounds a default drain: `npm run bench:drain-bound [-- --backend postgres|redis]
 * [-- --rounds 3]`. Never part of `npm test`; run it on a quiet machine.
 *
 * A processor at the comparison's settings (batch size 10, concurrency 10) fills its ten slots
 * with one claim and claims again once they free. With no-op jobs they free at once, so one
 * claim is in flight at a time, and the drain runs at most ten jobs per claim round trip,
 * whatever else the processor does. For each backend this prints, on a store of 100,000 due
 * jobs, from one caller, the calls interleaved so that the machine's drift hits each alike
 * (medians):
 * - the store's cheapest round trip (`SELECT 1`, `PING`), which every call pays;
 * - a claim of 10 as the queue makes it (the backend's `claimJobs`);
 * - the least a claim of 10 can do on the same store, as a reference: on PostgreSQL one
 *   `UPDATE` of the ten best due rows, locked with SKIP LOCKED, setting and returning what a
 *   claim does; on Redis one script that pops the ten best ids from `ready`, rewrites each job's
 *   metadata as processing and adds it to `processing`. Neither looks at the scheduled lane,
 *   dependencies, barriers, groups or type filters, nor keeps the status sets or the events a
 *   claim keeps, so no claim of this store's jobs costs less;
 * and the most jobs per second each allows at one claim in flight. Then drains of 20,000 no-op
 * jobs at those settings, without and with `claimAhead` (10, 20), in turn for `--rounds`: the
 * rate, the claims the processor sent, their mean round trip and the share of the drain's time
 * with a claim in flight.
 */
import { parseArgs } from 'node:util';
import type { Redis } from 'ioredis';
import type pg from 'pg';
import { keyName } from '../src/backends/redis/keys.js';
import { schemaNames } from '../src/backends/postgres/queries/names.js';
import { claimJobByIdSql, claimJobsSql, completeJobsSql } from '../src/backends/postgres/queries/processing.js';
import { CLAIMED_COLUMNS } from '../src/backends/postgres/rows.js';
import { initJobQueue, type JobQueue, type ProcessorOptions } from '../src/index.js';
import { backendOf } from '../src/queue.js';
import { openStore, type BenchBackend, type BenchStore } from './setup.js';
import { timeScripts, timeStatements, type CallTimes } from './store-calls.js';

const { values: args } = parseArgs({
  options: { backend: { type: 'string' }, rounds: { type: 'string', default: '3' } },
});
const backends: BenchBackend[] = args.backend ? [args.backend as BenchBackend] : ['postgres', 'redis'];
const rounds = Number(args.rounds);

const STORED = 100_000;
const CALLS = 1_500;
const BATCH = 10;
const DRAINED = 20_000;
const SETTINGS: { label: string; options: ProcessorOptions }[] = [
  { label: 'claimAhead 0', options: { batchSize: BATCH, concurrency: 10 } },
  { label: 'claimAhead 10', options: { batchSize: BATCH, concurrency: 10, claimAhead: 10 } },
  { label: 'claimAhead 20', options: { batchSize: BATCH, concurrency: 10, claimAhead: 20 } },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
const rate = (n: number) => Math.round(n).toLocaleString('en-US');

/** The three calls compared, for one backend's queue. */
interface Calls {
  cheapest: { label: string; call: () => Promise<unknown> };
  reference: () => Promise<number>;
}

async function addJobs(queue: JobQueue, count: number, store: BenchStore): Promise<void> {
  for (let done = 0; done < count; done += 1000) {
    await queue.addJobs(Array.from({ length: 1000 }, (_, i) => ({ jobType: 'noop', payload: { i: done + i } })));
  }
  // As `npm run bench:compare` does before a drain: statistics that match the table.
  const { schema } = store.describe();
  if (schema !== undefined) await queue.getPool().query(`ANALYZE "${schema}".job_queue`);
}

/** One UPDATE of the best due rows: what any claim of this table's jobs must at least do. */
function postgresCalls(queue: JobQueue, schema: string): Calls {
  const t = schemaNames(schema);
  const pool = queue.getPool() as pg.Pool;
  const text = `UPDATE ${t.jobs} j SET status = 'processing', attempts = j.attempts + 1, locked_at = $1,
      locked_by = $2, started_at = COALESCE(j.started_at, $1), updated_at = $1,
      processing_event_id = nextval('${t.eventIdSeq}'::regclass), processing_event_at = $1
    WHERE j.ctid = ANY(ARRAY(
      SELECT x.ctid FROM ${t.jobs} x
      WHERE x.ready_at <= COALESCE(x.promoted_at, x.created_at) AND NOT x.parked AND x.ready_at <= $1
      ORDER BY x.priority DESC, x.created_at, x.id LIMIT $3
      FOR UPDATE SKIP LOCKED))
    RETURNING ${CLAIMED_COLUMNS.map((c) => `j.${c}`).join(', ')}`;
  return {
    cheapest: { label: 'SELECT 1', call: () => pool.query({ name: 'bench_select_1', text: 'SELECT 1' }) },
    reference: async () => {
      const { rows } = await pool.query({ name: 'bench_least_claim', text, values: [new Date(), 'least', BATCH] });
      return rows.length;
    },
  };
}

const LEAST_CLAIM_LUA = `
local now = tonumber(ARGV[1])
local popped = redis.call('ZPOPMIN', KEYS[1], ARGV[3])
local rows = {}
for i = 1, #popped, 2 do
  local id = string.format('%d', tonumber(popped[i]))
  local job = cjson.decode(redis.call('HGET', KEYS[2], id))
  job.status = 'processing'
  job.attempts = job.attempts + 1
  job.lockedAt = now
  job.lockedBy = ARGV[2]
  job.startedAt = now
  job.updatedAt = now
  local text = cjson.encode(job)
  redis.call('HSET', KEYS[2], id, text)
  redis.call('ZADD', KEYS[3], now, popped[i])
  rows[#rows + 1] = text
end
return rows`;

/** One script popping the best ids of `ready`: what any claim of this store's jobs must at least do. */
async function redisCalls(queue: JobQueue, prefix: string): Promise<Calls> {
  const client = queue.getRedisClient() as Redis;
  const sha = (await client.script('LOAD', LEAST_CLAIM_LUA)) as string;
  const keys = ['ready', 'jobs', 'processing'].map((name) => keyName(prefix, name));
  return {
    cheapest: { label: 'PING', call: () => client.ping() },
    reference: async () => {
      const rows = (await client.evalsha(sha, keys.length, ...keys, Date.now(), 'least', BATCH)) as string[];
      return rows.length;
    },
  };
}

async function roundTrips(backend: BenchBackend): Promise<string[]> {
  const store = await openStore(backend);
  try {
    const queue = initJobQueue(store.config());
    await addJobs(queue, STORED, store);
    const { schema, keyPrefix } = store.describe();
    const calls = backend === 'postgres' ? postgresCalls(queue, schema!) : await redisCalls(queue, keyPrefix!);
    const claim = async () =>
      (await backendOf(queue).claimJobs({ workerId: 'queue', batchSize: BATCH, now: new Date() })).length;
    const times = { cheapest: [] as number[], claim: [] as number[], reference: [] as number[] };
    const timed = async (into: number[], call: () => Promise<unknown>) => {
      const start = performance.now();
      const claimed = await call();
      into.push(performance.now() - start);
      if (typeof claimed === 'number' && claimed !== BATCH) throw new Error(`a claim took ${claimed} jobs`);
    };
    for (let i = 0; i < CALLS; i++) {
      await timed(times.cheapest, calls.cheapest.call);
      await timed(times.claim, claim);
      await timed(times.reference, calls.reference);
    }
    await queue.close();
    const bound = (ms: number) => `at most ${rate((BATCH * 1000) / ms)} jobs/s at one claim in flight`;
    return [
      `${backend} (${rate(STORED)} due jobs; ${rate(CALLS)} of each call, interleaved; medians)`,
      `  cheapest round trip (${calls.cheapest.label}): ${median(times.cheapest).toFixed(3)} ms`,
      `  a claim of ${BATCH} as the queue claims: ${median(times.claim).toFixed(3)} ms, ${bound(median(times.claim))}`,
      `  the least claim of ${BATCH} (reference): ${median(times.reference).toFixed(3)} ms, ` +
        bound(median(times.reference)),
    ];
  } finally {
    await store.destroy();
  }
}

/** Times the claims and completions the queue's processor sends. */
function timeCalls(queue: JobQueue, store: BenchStore): CallTimes {
  const { schema } = store.describe();
  if (schema === undefined) return timeScripts(queue.getRedisClient() as Redis);
  const t = schemaNames(schema);
  return timeStatements(queue.getPool() as pg.Pool, {
    claimJobs: [claimJobsSql(t, { grouped: false }), claimJobByIdSql(t)],
    completeJobs: [completeJobsSql(t)],
  });
}

/** A drain's rate, its claims' round trips and its length in ms. */
interface Drained {
  rate: number;
  claims: number[];
  ms: number;
}

async function drain(store: BenchStore, options: ProcessorOptions): Promise<Drained> {
  await store.reset();
  const queue = initJobQueue(store.config());
  try {
    await addJobs(queue, DRAINED, store);
    const times = timeCalls(queue, store);
    let ran = 0;
    let drained!: () => void;
    const done = new Promise<void>((resolve) => (drained = resolve));
    const processor = queue.createProcessor(
      {
        noop: () => {
          if (++ran === DRAINED) drained();
        },
      },
      options,
    );
    const start = performance.now();
    processor.startInBackground();
    await done;
    const ms = performance.now() - start;
    await processor.stopAndDrain();
    return { rate: (DRAINED * 1000) / ms, claims: times.claimJobs, ms };
  } finally {
    await queue.close();
  }
}

async function drains(backend: BenchBackend): Promise<string[]> {
  const store = await openStore(backend);
  const results = new Map<string, Drained[]>();
  try {
    for (let round = 0; round < rounds; round++) {
      for (const { label, options } of SETTINGS) {
        const result = await drain(store, options);
        results.set(label, [...(results.get(label) ?? []), result]);
      }
    }
  } finally {
    await store.destroy();
  }
  const lines = [`  drains of ${rate(DRAINED)} no-op jobs, batch size ${BATCH}, concurrency 10, in turn:`];
  for (const [label, runs] of results) {
    const claims = runs.flatMap((r) => r.claims);
    const inFlight = runs.reduce((sum, r) => sum + r.claims.reduce((a, b) => a + b, 0), 0);
    const wall = runs.reduce((sum, r) => sum + r.ms, 0);
    lines.push(
      `    ${label}: ${runs.map((r) => rate(r.rate)).join(' / ')} jobs/s (median ${rate(median(runs.map((r) => r.rate)))}); ` +
        `${rate(claims.length / runs.length)} claims per drain, mean round trip ` +
        `${(claims.reduce((a, b) => a + b, 0) / claims.length).toFixed(3)} ms, a claim in flight ` +
        `${Math.round((100 * inFlight) / wall)}% of the time`,
    );
  }
  return lines;
}

for (const backend of backends) {
  for (const line of await roundTrips(backend)) console.log(line);
  for (const line of await drains(backend)) console.log(line);
}
