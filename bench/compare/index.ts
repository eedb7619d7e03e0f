/**
 * queuedev against its peers: `npm run bench:compare [-- --quick] [-- --reps N]
 * [-- --only <workload>[,<workload>]] [-- --backend postgres|redis] [-- --libraries <id>[,<id>]]
 * [-- --stale-statistics]`.
 *
 * Every workload runs on every library of the backend, interleaved (one repetition of each
 * library, then the next repetition in a rotated order), each repetition on a fresh schema or
 * key prefix. It prints each library's median and queuedev ÷ the best peer at its documented
 * defaults (a ratio above 1 means queuedev is ahead, for latencies too), then the same as
 * Markdown tables for docs/performance.md. Each backlog repetition first times a drain without
 * backlog of the same library; the backlog ratio is the median of those pairs. The adds and the
 * drains in this process also report their CPU per job: this process, and the store's server
 * (cpu.ts). A repetition whose exactly-once check fails counts as failed, never as a figure.
 * The pickup also runs on the machine's floor (adapters/floor.ts), the least a pickup takes on
 * this machine and store with no queue at all, shown beside the libraries and never compared.
 * On PostgreSQL the drains start on analyzed tables, unless `--stale-statistics` (see Statistics).
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { Backend, Library } from './adapters/types.js';
import { LIBRARIES, dropNamespace } from './libraries.js';
import {
  CheckFailed,
  FULL,
  QUICK,
  WORKLOADS,
  measure,
  type Figure,
  type Statistics,
  type WorkloadName,
} from './workloads.js';

const args = process.argv.slice(2);
const option = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const quick = args.includes('--quick');
const scale = quick ? QUICK : FULL;
const reps = Number(option('--reps') ?? 3);
const statistics: Statistics = args.includes('--stale-statistics') ? 'stale' : 'analyzed';
const backends = (option('--backend')?.split(',') ?? ['postgres', 'redis']) as Backend[];
// --libraries pg-boss,graphile-worker-perf: queuedev and only these peers (ids or id prefixes).
const chosen = option('--libraries')?.split(',');
const included = (l: Library) =>
  l.kind.startsWith('queuedev') || l.kind === 'floor' || !chosen || chosen.some((c) => l.id.startsWith(c));
/** The libraries a workload runs on: the machine's floor (adapters/floor.ts) measures pickups only. */
const runsOn = (workload: WorkloadName, l: Library) => l.kind !== 'floor' || workload === 'pickup';
const workloads = (option('--only')?.split(',') ?? WORKLOADS) as WorkloadName[];
for (const w of workloads)
  if (!WORKLOADS.includes(w)) throw new Error(`unknown workload ${w}; one of ${WORKLOADS.join(', ')}`);

const TITLES: Record<WorkloadName, string> = {
  'add-batch': `batch add (${scale.batches} × ${scale.batch.toLocaleString('en-US')}), jobs/s`,
  'add-single': `single add (${scale.singles.toLocaleString('en-US')} sequential), jobs/s`,
  drain: `drain ${scale.drain.toLocaleString('en-US')} no-op jobs, jobs/s`,
  pickup: 'pickup latency p50 / p95, ms',
  backlog: `drain ${scale.drain.toLocaleString('en-US')} due jobs behind ${scale.backlog.toLocaleString('en-US')} future ones, jobs/s`,
  multi: `drain ${scale.drain.toLocaleString('en-US')} with ${scale.processes} worker processes, jobs/s`,
};

/** Results per cell (workload, library): figures of the passing repetitions, and failures. */
interface Cell {
  figures: Figure[];
  failures: string[];
}
const cells = new Map<string, Cell>();
const cellOf = (w: WorkloadName, l: Library) => {
  const key = `${w}/${l.id}`;
  if (!cells.has(key)) cells.set(key, { figures: [], failures: [] });
  return cells.get(key)!;
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** The median figure of a cell, as a number where higher is better (latency: its p50 inverted). */
function summary(cell: Cell | undefined): { text: string; score?: number; rate?: number } {
  if (!cell || cell.figures.length === 0) return { text: cell?.failures.length ? 'failed' : '–' };
  const failed = cell.failures.length ? ` (${cell.failures.length} failed)` : '';
  const first = cell.figures[0]!;
  if ('rate' in first) {
    const rate = median(cell.figures.map((f) => ('rate' in f ? f.rate : 0)));
    return { text: `${Math.round(rate).toLocaleString('en-US')}${failed}`, score: rate, rate };
  }
  const p50 = median(cell.figures.map((f) => ('p50' in f ? f.p50 : 0)));
  const p95 = median(cell.figures.map((f) => ('p95' in f ? f.p95 : 0)));
  return { text: `${p50.toFixed(1)} / ${p95.toFixed(1)}${failed}`, score: 1 / p50 };
}

const ratio = (x: number) => `${x.toFixed(2)}x`;

async function runCell(workload: WorkloadName, library: Library, rep: number): Promise<void> {
  const namespace = `cmp_${randomBytes(3).toString('hex')}_${library.id.replace(/\W/g, '_')}`;
  const cell = cellOf(workload, library);
  try {
    // The backlog ratio compares with a drain without backlog of the same library right before,
    // so both drains see the same load of the shared machine.
    const baseline = workload === 'backlog' ? await baselineDrain(library) : undefined;
    const figure = await measure(workload, library, namespace, scale, statistics);
    cell.figures.push(baseline === undefined ? figure : { ...figure, baseline });
    const last = summary({ figures: [cell.figures.at(-1)!], failures: [] });
    const paired =
      baseline === undefined || !('rate' in figure)
        ? ''
        : ` (${ratio(figure.rate / baseline)} of its drain just before)`;
    const cpu = 'cpu' in figure && figure.cpu ? ` (CPU per job: ${cpuText([figure])})` : '';
    console.log(`  ${workload} #${rep} ${library.label.padEnd(30)} ${last.text}${paired}${cpu}`);
  } catch (err) {
    const message = err instanceof CheckFailed ? err.message : `error: ${(err as Error).message}`;
    cell.failures.push(message);
    console.log(`  ${workload} #${rep} ${library.label.padEnd(30)} FAILED ${message}`);
  } finally {
    await dropNamespace(library.backend, namespace);
  }
}

/** A drain without backlog for the backlog workload's pair, on a namespace of its own. */
async function baselineDrain(library: Library): Promise<number> {
  const namespace = `cmp_${randomBytes(3).toString('hex')}_${library.id.replace(/\W/g, '_')}`;
  try {
    const figure = await measure('drain', library, namespace, scale, statistics);
    return 'rate' in figure ? figure.rate : NaN;
  } finally {
    await dropNamespace(library.backend, namespace);
  }
}

/** The median over repetitions of backlog drain ÷ the drain measured just before it. */
function backlogRatio(cell: Cell | undefined): string {
  const pairs = (cell?.figures ?? []).flatMap((f) => ('rate' in f && f.baseline ? [f.rate / f.baseline] : []));
  return pairs.length > 0 ? ratio(median(pairs)) : '–';
}

/**
 * Median CPU per job, in µs: the queue's process + the store's server (cpu.ts), or '–'. The
 * two medians are taken separately.
 */
function cpuText(figures: Figure[]): string {
  const cpus = figures.flatMap((f) => ('cpu' in f && f.cpu ? [f.cpu] : []));
  if (cpus.length === 0) return '–';
  const own = Math.round(median(cpus.map((c) => c.process)));
  const stores = cpus.flatMap((c) => (c.store === undefined ? [] : [c.store]));
  return stores.length === 0 ? `${own} + ?` : `${own} + ${Math.round(median(stores))}`;
}

console.log(`queuedev vs peers${quick ? ' (quick: scaled down)' : ''}, ${reps} repetitions`);
console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`);
console.log(
  statistics === 'analyzed'
    ? 'PostgreSQL drains start on analyzed tables (ANALYZE once the jobs are added)'
    : 'PostgreSQL drains start on the statistics the adds left (--stale-statistics)',
);
for (const backend of backends) {
  const libraries = LIBRARIES.filter((l) => l.backend === backend && included(l));
  for (const workload of workloads) {
    console.log(`\n${backend}: ${TITLES[workload]}`);
    for (let rep = 1; rep <= reps; rep++) {
      // Rotate the order so that no library always runs first (or right after the same one).
      const running = libraries.filter((l) => runsOn(workload, l));
      const order = running.map((_, i) => running[(i + rep - 1) % running.length]!);
      for (const library of order) await runCell(workload, library, rep);
    }
  }
}

// Markdown: one table per backend with every library's median, then queuedev ÷ best peer.
for (const backend of backends) {
  const libraries = LIBRARIES.filter((l) => l.backend === backend && included(l));
  console.log(`\n### ${backend === 'postgres' ? 'PostgreSQL' : 'Redis'}\n`);
  console.log(
    `| workload | ${libraries.map((l) => l.label).join(' | ')} | queuedev ÷ best peer | queuedev (tuned) ÷ best tuned peer |`,
  );
  console.log(`|---|${libraries.map(() => '---:').join('|')}|---|---|`);
  for (const workload of workloads) {
    const results = libraries.map((l) => ({ library: l, ...summary(cells.get(`${workload}/${l.id}`)) }));
    const own = results.find((r) => r.library.kind === 'queuedev');
    const peers = results.filter((r) => r.library.kind === 'peer' && r.score !== undefined);
    const best = peers.sort((a, b) => b.score! - a.score!)[0];
    const vs = own?.score !== undefined && best ? `${ratio(own.score / best.score!)} (${best.library.label})` : 'n/a';
    const ownTuned = results.find((r) => r.library.kind === 'queuedev-tuned');
    const tunedPeers = results.filter((r) => r.library.kind === 'tuned' && r.score !== undefined);
    const bestTuned = tunedPeers.sort((a, b) => b.score! - a.score!)[0];
    const tunedVs =
      ownTuned?.score !== undefined && bestTuned
        ? `${ratio(ownTuned.score / bestTuned.score!)} (${bestTuned.library.label})`
        : 'n/a';
    console.log(`| ${TITLES[workload]} | ${results.map((r) => r.text).join(' | ')} | ${vs} | ${tunedVs} |`);
    const cpu = libraries.map((l) => cpuText(cells.get(`${workload}/${l.id}`)?.figures ?? []));
    if (cpu.some((c) => c !== '–'))
      console.log(`| ↳ CPU per job, µs: queue's process + store server | ${cpu.join(' | ')} | | |`);
  }
  if (workloads.includes('backlog')) {
    const row = libraries.map((l) => backlogRatio(cells.get(`backlog/${l.id}`)));
    console.log(`| backlog drain ÷ drain without backlog just before (median of pairs) | ${row.join(' | ')} | | |`);
  }
}
console.log('\nSettings:');
for (const l of LIBRARIES.filter((x) => backends.includes(x.backend) && included(x)))
  console.log(`- ${l.label} (${l.backend}): ${l.settings}`);
for (const [key, cell] of cells) for (const f of cell.failures) console.log(`failed: ${key}: ${f}`);
