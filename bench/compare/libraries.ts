/** Every library of the comparison, by backend, and the namespaces they run in. */
import { Redis } from 'ioredis';
import pg from 'pg';
import { bullmq } from './adapters/bullmq.js';
import { floor } from './adapters/floor.js';
import { graphileWorker } from './adapters/graphile-worker.js';
import { pgBoss } from './adapters/pg-boss.js';
import { queuedev } from './adapters/queuedev.js';
import { PG_URL, REDIS_URL, type Backend, type Library } from './adapters/types.js';

export const LIBRARIES: Library[] = [
  queuedev('postgres'),
  queuedev('postgres', 'tuned'),
  pgBoss(),
  graphileWorker('default'),
  graphileWorker('recommended'),
  graphileWorker('perf'),
  bullmq('postgres'),
  floor('postgres'),
  queuedev('redis'),
  bullmq('redis'),
  floor('redis'),
];

export function libraryById(id: string): Library {
  const library = LIBRARIES.find((l) => l.id === id);
  if (!library) throw new Error(`unknown library ${id}`);
  return library;
}

/**
 * Gathers the planner's statistics of a PostgreSQL namespace's tables (`ANALYZE`), as autovacuum
 * does some time after a table's rows change: the drains measure every library with statistics
 * that count its jobs, not with those of a table before they were added. Redis has nothing to do.
 */
export async function analyzeNamespace(backend: Backend, namespace: string): Promise<void> {
  if (backend !== 'postgres') return;
  await withPostgres(async (client) => {
    const { rows } = await client.query<{ name: string }>(
      `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = $1`,
      [namespace],
    );
    if (rows.length > 0) await client.query(`ANALYZE ${rows.map((r) => r.name).join(', ')}`);
  });
}

/** Drops a namespace: its schema on PostgreSQL, its keys on Redis (never the whole database). */
export async function dropNamespace(backend: Backend, namespace: string): Promise<void> {
  if (backend === 'postgres') {
    await withPostgres((client) => client.query(`DROP SCHEMA IF EXISTS "${namespace}" CASCADE`));
    return;
  }
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${namespace}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}

/** Runs `work` on a connection of its own to the benchmark's database, closed afterwards. */
async function withPostgres(work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}
