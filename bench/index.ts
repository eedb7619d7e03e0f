/**
 * queuedev benchmark: `npm run bench [-- --backend postgres|redis] [-- --quick]`.
 *
 * For each backend: enqueue throughput (addJobs 10 x 1,000; 1,000 sequential addJob), drain
 * throughput (10,000 no-op jobs at concurrency 10), pickup latency (200 jobs added 20 ms apart
 * to an idle background processor: from the add call to the handler's start), commits
 * (PostgreSQL) or commands (Redis) per job while draining, and the processor's peak RSS while
 * draining 100,000 jobs (in a child process), then the cost budget per job (bench/cost.ts).
 * `--cost` measures the cost budget alone. Never part of `npm test`.
 */
import { fork } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { initJobQueue } from '../src/index.js';
import { PHASES, measureCost } from './cost.js';
import { openStore, type BenchBackend, type BenchStore } from './setup.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args.includes('--backend') ? (args[args.indexOf('--backend') + 1] as BenchBackend) : undefined;
const backends: BenchBackend[] = only ? [only] : ['postgres', 'redis'];
const costOnly = args.includes('--cost');
const scale = quick ? 0.1 : 1;

interface Results {
  addJobsPerSec: number;
  addJobPerSec: number;
  drainPerSec: number;
  pickupP50Ms: number;
  pickupP95Ms: number;
  storeOpsPerJob: number;
  peakRssMb: number;
  rssJobs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function addNoops(store: BenchStore, count: number): Promise<void> {
  const queue = initJobQueue(store.config());
  for (let done = 0; done < count; done += 1000) {
    const n = Math.min(1000, count - done);
    await queue.addJobs(Array.from({ length: n }, (_, i) => ({ jobType: 'noop', payload: { i: done + i } })));
  }
  await queue.close();
}

async function benchEnqueue(store: BenchStore): Promise<Pick<Results, 'addJobsPerSec' | 'addJobPerSec'>> {
  const queue = initJobQueue(store.config());
  await queue.addJob({ jobType: 'warmup', payload: {} });
  const batches = 10;
  const batchSize = Math.round(1000 * scale) || 1;
  let t = performance.now();
  for (let b = 0; b < batches; b++) {
    await queue.addJobs(
      Array.from({ length: batchSize }, (_, i) => ({ jobType: 'bench', payload: { b, i }, tags: ['bench'] })),
    );
  }
  const addJobsPerSec = (batches * batchSize) / ((performance.now() - t) / 1000);
  const singles = Math.round(1000 * scale) || 1;
  t = performance.now();
  for (let i = 0; i < singles; i++) await queue.addJob({ jobType: 'bench', payload: { i } });
  const addJobPerSec = singles / ((performance.now() - t) / 1000);
  await queue.close();
  await store.reset();
  return { addJobsPerSec, addJobPerSec };
}

async function benchDrain(store: BenchStore): Promise<Pick<Results, 'drainPerSec' | 'storeOpsPerJob'>> {
  const total = Math.round(10_000 * scale);
  await addNoops(store, total);
  const queue = initJobQueue(store.config());
  let handled = 0;
  let finished!: () => void;
  const allHandled = new Promise<void>((r) => (finished = r));
  const processor = queue.createProcessor(
    {
      noop: async () => {
        if (++handled === total) finished();
      },
    },
    { concurrency: 10, pollInterval: 50 },
  );
  const before = await store.counter();
  const t = performance.now();
  processor.startInBackground();
  await allHandled;
  await processor.stopAndDrain();
  const seconds = (performance.now() - t) / 1000;
  const ops = (await store.counter()) - before;
  await queue.close();
  await store.reset();
  return { drainPerSec: total / seconds, storeOpsPerJob: ops / total };
}

async function benchPickup(store: BenchStore): Promise<Pick<Results, 'pickupP50Ms' | 'pickupP95Ms'>> {
  const queue = initJobQueue(store.config());
  const adder = initJobQueue(store.config());
  const count = quick ? 50 : 200;
  const startedAt = new Map<number, number>();
  const processor = queue.createProcessor({
    ping: async (payload: unknown) => {
      startedAt.set((payload as { n: number }).n, performance.now());
    },
  });
  processor.startInBackground();
  await sleep(500); // let the processor go idle
  const addedAt: number[] = [];
  for (let n = 0; n < count; n++) {
    addedAt[n] = performance.now();
    await adder.addJob({ jobType: 'ping', payload: { n } });
    await sleep(20);
  }
  const deadline = Date.now() + 10_000;
  while (startedAt.size < count && Date.now() < deadline) await sleep(20);
  await processor.stopAndDrain();
  await Promise.all([queue.close(), adder.close()]);
  await store.reset();
  if (startedAt.size < count) throw new Error(`pickup: only ${startedAt.size} of ${count} jobs started within 10 s`);
  const latencies = addedAt.map((a, n) => startedAt.get(n)! - a).sort((x, y) => x - y);
  return { pickupP50Ms: percentile(latencies, 50), pickupP95Ms: percentile(latencies, 95) };
}

async function benchRss(store: BenchStore): Promise<Pick<Results, 'peakRssMb' | 'rssJobs'>> {
  const total = Math.round(100_000 * scale);
  await addNoops(store, total);
  const child = fork(
    fileURLToPath(new URL('./rss-worker.ts', import.meta.url)),
    [JSON.stringify(store.describe()), String(total)],
    {
      execArgv: ['--import', 'tsx'],
    },
  );
  const peak = await new Promise<number>((resolve, reject) => {
    child.on('message', (m) => resolve((m as { peakRss: number }).peakRss));
    child.on('exit', (code) => code !== 0 && reject(new Error(`rss worker exited with ${code}`)));
  });
  await store.reset();
  return { peakRssMb: peak / 1024 / 1024, rssJobs: total };
}

async function run(backend: BenchBackend): Promise<Results | undefined> {
  const store = await openStore(backend);
  try {
    if (costOnly) return undefined;
    const enqueue = await benchEnqueue(store);
    const drain = await benchDrain(store);
    const pickup = await benchPickup(store);
    const rss = await benchRss(store);
    return { ...enqueue, ...drain, ...pickup, ...rss };
  } finally {
    await store.destroy();
  }
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

console.log(`queuedev benchmark${quick ? ' (quick: 1/10 of the work)' : ''}`);
console.log(
  `machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${fmt(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
);
for (const backend of backends) {
  const r = await run(backend);
  await printCost(backend);
  if (!r) continue;
  const unit = backend === 'postgres' ? 'commits/job' : 'commands/job (in scripts too)';
  console.log(`\n${backend}`);
  console.log(`  addJobs (10 x 1,000)        ${fmt(r.addJobsPerSec).padStart(10)} jobs/s`);
  console.log(`  addJob (1,000 sequential)   ${fmt(r.addJobPerSec).padStart(10)} jobs/s`);
  console.log(`  drain (10,000, conc. 10)    ${fmt(r.drainPerSec).padStart(10)} jobs/s`);
  console.log(`  pickup latency p50 / p95    ${fmt(r.pickupP50Ms, 2).padStart(10)} / ${fmt(r.pickupP95Ms, 2)} ms`);
  console.log(`  ${unit.padEnd(28)}${fmt(r.storeOpsPerJob, 2).padStart(10)}`);
  console.log(`  peak RSS (${fmt(r.rssJobs)} jobs)`.padEnd(30) + `${fmt(r.peakRssMb).padStart(10)} MB`);
}

/** The cost budget per job, as a Markdown table (docs/performance.md keeps one). */
async function printCost(backend: BenchBackend): Promise<void> {
  const store = await openStore(backend);
  try {
    const jobs = quick ? 200 : 1000;
    const stored = Math.round(100_000 * scale);
    const cost = await measureCost(backend, store, jobs, stored);
    console.log(`\n${backend}: cost per job (${fmt(jobs)} jobs per phase; storage over ${fmt(stored)} stored jobs)\n`);
    console.log(`| per job | ${PHASES.join(' | ')} |`);
    console.log(`|---|${PHASES.map(() => '---:').join('|')}|`);
    for (const measure of Object.keys(cost.addJobs)) {
      console.log(`| ${measure} | ${PHASES.map((p) => fmt(cost[p][measure]!, 2)).join(' | ')} |`);
    }
    for (const [measure, value] of Object.entries(cost.storage)) console.log(`| ${measure} | ${fmt(value)} | | |`);
  } finally {
    await store.destroy();
  }
}
