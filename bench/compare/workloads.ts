/**
 * The workloads of the comparison. Each one opens a library on a fresh namespace, measures one
 * figure and, for every drain, checks that each job ran exactly once before the figure counts.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Backend, Library, Payload, QueueHandle } from './adapters/types.js';
import { countCpu, type CpuPerJob } from './cpu.js';
import { analyzeNamespace } from './libraries.js';

export interface Scale {
  /** Jobs per batch and batches of the batch-add workload. */
  batch: number;
  batches: number;
  singles: number;
  drain: number;
  pickups: number;
  backlog: number;
  processes: number;
  /** A drain that has not finished by then fails. */
  timeoutMs: number;
}

export const FULL: Scale = {
  batch: 1000,
  batches: 10,
  singles: 1000,
  drain: 10_000,
  pickups: 200,
  backlog: 200_000,
  processes: 4,
  timeoutMs: 120_000,
};

export const QUICK: Scale = {
  batch: 100,
  batches: 10,
  singles: 200,
  drain: 2_000,
  pickups: 50,
  backlog: 20_000,
  processes: 4,
  timeoutMs: 60_000,
};

/**
 * One measurement: jobs per second, or latency percentiles in ms. A rate of the backlog workload
 * also has `baseline`, the same library's drain without backlog measured right before it, in the
 * same repetition. The adds and the drains that run in this process also have their CPU per job
 * (cpu.ts).
 */
export type Figure = { rate: number; baseline?: number; cpu?: CpuPerJob } | { p50: number; p95: number };

export type WorkloadName = 'add-batch' | 'add-single' | 'drain' | 'pickup' | 'backlog' | 'multi';
export const WORKLOADS: WorkloadName[] = ['add-batch', 'add-single', 'drain', 'pickup', 'backlog', 'multi'];

export class CheckFailed extends Error {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const payloads = (from: number, count: number): Payload[] => Array.from({ length: count }, (_, i) => ({ n: from + i }));
const seconds = (since: number) => (performance.now() - since) / 1000;

async function addInBatches(handle: QueueHandle, from: number, count: number, delayMs?: number): Promise<void> {
  for (let done = 0; done < count; done += 1000) {
    await handle.addMany(payloads(from + done, Math.min(1000, count - done)), delayMs);
  }
}

/** Throws unless every job numbered `from` … `from + count - 1` ran exactly once, and no other. */
function checkExactlyOnce(runs: Map<number, number>, from: number, count: number): void {
  let missing = 0;
  let repeated = 0;
  for (let n = from; n < from + count; n++) {
    const times = runs.get(n) ?? 0;
    if (times === 0) missing++;
    if (times > 1) repeated++;
  }
  const strays = [...runs.keys()].filter((n) => n < from || n >= from + count).length;
  if (missing + repeated + strays > 0) {
    throw new CheckFailed(`exactly-once check: ${missing} never ran, ${repeated} ran twice or more, ${strays} unknown`);
  }
}

/** Runs a worker in this process until `count` jobs ran; returns the rate and CPU per job (cpu.ts) after the check. */
async function drain(
  handle: QueueHandle,
  backend: Backend,
  from: number,
  count: number,
  scale: Scale,
): Promise<{ rate: number; cpu: CpuPerJob }> {
  const runs = new Map<number, number>();
  let handled = 0;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const cpuSince = await countCpu(backend);
  const start = performance.now();
  await handle.work((payload) => {
    runs.set(payload.n, (runs.get(payload.n) ?? 0) + 1);
    if (++handled === count) finished();
  });
  const timedOut = await Promise.race([done.then(() => false), sleep(scale.timeoutMs).then(() => true)]);
  const rate = count / seconds(start);
  const cpu = await cpuSince(count);
  if (timedOut) throw new CheckFailed(`timed out: ${handled} of ${count} jobs ran in ${scale.timeoutMs / 1000} s`);
  await sleep(300); // a job delivered twice would show up now
  checkExactlyOnce(runs, from, count);
  return { rate, cpu };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function spawnChild(args: string[]): ChildProcess {
  return fork(fileURLToPath(new URL('./child.ts', import.meta.url)), args, { execArgv: ['--import', 'tsx'] });
}

function nextMessage<T>(child: ChildProcess, accept: (m: T) => boolean): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: T) => {
      if (!accept(m)) return;
      child.off('message', onMessage);
      resolve(m);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`child exited with ${code} before replying`)));
  });
}

async function pickup(library: Library, handle: QueueHandle, namespace: string, scale: Scale): Promise<Figure> {
  const latencies: number[] = [];
  const runs = new Map<number, number>();
  await handle.work((payload) => {
    latencies.push(performance.timeOrigin + performance.now() - payload.at!);
    runs.set(payload.n, (runs.get(payload.n) ?? 0) + 1);
  });
  await sleep(1000); // let the worker go idle
  const adder = spawnChild(['adder', library.id, namespace, String(scale.pickups)]);
  await nextMessage<{ done?: boolean }>(adder, (m) => m.done === true);
  const deadline = Date.now() + 10_000;
  while (runs.size < scale.pickups && Date.now() < deadline) await sleep(20);
  await sleep(300);
  checkExactlyOnce(runs, 0, scale.pickups);
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p95: percentile(latencies, 95) };
}

async function multiProcessDrain(library: Library, namespace: string, scale: Scale): Promise<Figure> {
  const children = Array.from({ length: scale.processes }, () => spawnChild(['worker', library.id, namespace]));
  try {
    await Promise.all(children.map((c) => nextMessage<{ ready?: boolean }>(c, (m) => m.ready === true)));
    let handled = 0;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    for (const child of children) {
      child.on('message', (m: { handled?: number }) => {
        if (m.handled !== undefined && (handled += m.handled) >= scale.drain) finished();
      });
    }
    const start = performance.now();
    for (const child of children) child.send({ go: true });
    const timedOut = await Promise.race([done.then(() => false), sleep(scale.timeoutMs).then(() => true)]);
    const rate = scale.drain / seconds(start);
    await sleep(300);
    const reports = children.map((c) => nextMessage<{ runs?: [number, number][] }>(c, (m) => m.runs !== undefined));
    for (const child of children) child.send({ stop: true });
    const runs = new Map<number, number>();
    for (const report of await Promise.all(reports)) {
      for (const [n, times] of report.runs!) runs.set(n, (runs.get(n) ?? 0) + times);
    }
    if (timedOut)
      throw new CheckFailed(`timed out: ${handled} of ${scale.drain} jobs ran in ${scale.timeoutMs / 1000} s`);
    checkExactlyOnce(runs, 0, scale.drain);
    return { rate };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
  }
}

/**
 * The planner's statistics a drain starts with on PostgreSQL: `analyzed` (the default), gathered
 * once the jobs are added, as autovacuum would have done in a while, so that every library's
 * statements are planned for the jobs they find; or `stale` (`--stale-statistics`), those the
 * adds left, which right after adding to a fresh table is none: the state of a table that grew
 * in a burst before autovacuum got to it. Some libraries' drains differ by a factor of two or more
 * between the two (docs/performance.md).
 */
export type Statistics = 'analyzed' | 'stale';

/** Measures one workload for one library on a fresh namespace (the caller drops it). */
export async function measure(
  workload: WorkloadName,
  library: Library,
  namespace: string,
  scale: Scale,
  statistics: Statistics,
): Promise<Figure> {
  const handle = await library.open(namespace, true);
  const added = () => (statistics === 'analyzed' ? analyzeNamespace(library.backend, namespace) : Promise.resolve());
  try {
    switch (workload) {
      case 'add-batch': {
        await handle.addOne({ n: -1 }); // warm-up: connections, prepared statements, scripts
        const cpuSince = await countCpu(library.backend);
        const start = performance.now();
        for (let b = 0; b < scale.batches; b++) await handle.addMany(payloads(b * scale.batch, scale.batch));
        const jobs = scale.batches * scale.batch;
        return { rate: jobs / seconds(start), cpu: await cpuSince(jobs) };
      }
      case 'add-single': {
        await handle.addOne({ n: -1 });
        const cpuSince = await countCpu(library.backend);
        const start = performance.now();
        for (let n = 0; n < scale.singles; n++) await handle.addOne({ n });
        return { rate: scale.singles / seconds(start), cpu: await cpuSince(scale.singles) };
      }
      case 'drain':
        await addInBatches(handle, 0, scale.drain);
        await added();
        return await drain(handle, library.backend, 0, scale.drain, scale);
      case 'backlog':
        // Future jobs first (a day ahead, numbered after the due ones), then the due jobs.
        await addInBatches(handle, scale.drain, scale.backlog, 24 * 3600 * 1000);
        await addInBatches(handle, 0, scale.drain);
        await added();
        return await drain(handle, library.backend, 0, scale.drain, scale);
      case 'pickup':
        return await pickup(library, handle, namespace, scale);
      case 'multi':
        await addInBatches(handle, 0, scale.drain);
        await added();
        return await multiProcessDrain(library, namespace, scale);
    }
  } finally {
    await handle.close();
  }
}
