/**
 * CPU time per job of a workload, split between the queue's process (the producer of an add, the
 * worker of a drain) and the store's server, so a rate can be read as a cost: a library whose
 * two sides are both idle much of the time waits on round trips; one whose sum of CPU per job is
 * higher cannot go as fast on the same cores.
 *
 * The store's CPU is read from the server itself: Redis reports its own (INFO cpu); PostgreSQL
 * does not, so its CPU is the sum over the server processes of this machine (/proc), and none
 * is reported when the server runs elsewhere. Either way it counts the whole server, so the
 * figure is only meaningful while the benchmark is the only load on it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { Redis } from 'ioredis';
import { REDIS_URL, type Backend } from './adapters/types.js';

/** Microseconds of CPU per job: the queue's process, and the store's server when it can be read. */
export interface CpuPerJob {
  process: number;
  store?: number;
}

/** Clock ticks per second of /proc/<pid>/stat times: 100 on every Linux this runs on. */
const TICKS_PER_SECOND = 100;

/** CPU seconds of every PostgreSQL server process on this machine, or undefined when none is visible. */
function postgresSeconds(): number | undefined {
  let ticks = 0;
  let found = false;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // the process ended meanwhile
    }
    if (!stat.includes(' (postgres) ')) continue;
    // Fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
    found = true;
  }
  return found ? ticks / TICKS_PER_SECOND : undefined;
}

/** CPU seconds the Redis server has used since it started (user and system). */
async function redisSeconds(): Promise<number | undefined> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    const info = await client.info('cpu');
    const read = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1]);
    const seconds = read('used_cpu_user') + read('used_cpu_sys');
    return Number.isFinite(seconds) ? seconds : undefined;
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}

function storeSeconds(backend: Backend): Promise<number | undefined> {
  return backend === 'redis' ? redisSeconds() : Promise.resolve(postgresSeconds());
}

/** Starts counting; the returned function gives the CPU per job of `jobs` jobs since then. */
export async function countCpu(backend: Backend): Promise<(jobs: number) => Promise<CpuPerJob>> {
  const storeBefore = await storeSeconds(backend);
  const processBefore = process.cpuUsage();
  return async (jobs) => {
    const used = process.cpuUsage(processBefore);
    const storeAfter = await storeSeconds(backend);
    const perJob = (seconds: number) => (seconds * 1e6) / jobs;
    return {
      process: (used.user + used.system) / jobs,
      ...(storeBefore !== undefined && storeAfter !== undefined ? { store: perJob(storeAfter - storeBefore) } : {}),
    };
  };
}
