/** Store set-up for the benchmark: a fresh PostgreSQL schema or Redis prefix per run. */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { migrate, type JobQueueConfig } from '../src/index.js';

export type BenchBackend = 'postgres' | 'redis';

export const PG_URL = process.env.PG_QUEUE_DATABASE ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface BenchStore {
  /** Config for a queue on this store; a child process can rebuild it from `describe()`. */
  config(): JobQueueConfig;
  /** Transactions committed (PostgreSQL) or commands processed (Redis) so far, server-wide. */
  counter(): Promise<number>;
  /** Empties the store between scenarios. */
  reset(): Promise<void>;
  /** Drops the schema / deletes the keys. */
  destroy(): Promise<void>;
  /** Serializable description for child processes. */
  describe(): { backend: BenchBackend; schema?: string; keyPrefix?: string };
}

export async function openStore(backend: BenchBackend): Promise<BenchStore> {
  const tag = randomBytes(4).toString('hex');
  if (backend === 'postgres') {
    const schema = `bench_${tag}`;
    await migrate({ databaseUrl: PG_URL, schema });
    const admin = new pg.Pool({ connectionString: PG_URL, max: 2 });
    return {
      config: () => ({ backend: 'postgres', databaseConfig: { connectionString: PG_URL }, schema }),
      counter: async () => {
        // Backends report their statistics at most once a second, when idle: wait for that,
        // then drop this session's cached snapshot before reading.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await admin.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await admin.query(
          'SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = current_database()',
        );
        return Number(rows[0].n);
      },
      reset: async () => {
        await admin.query(`TRUNCATE "${schema}".job_queue, "${schema}".job_events`);
      },
      destroy: async () => {
        await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
        await admin.end();
      },
      describe: () => ({ backend, schema }),
    };
  }
  const keyPrefix = `bench-${tag}:`;
  const admin = new Redis(REDIS_URL);
  const deleteAll = async () => {
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await admin.del(...keys);
    } while (cursor !== '0');
  };
  return {
    config: () => ({ backend: 'redis', redisConfig: { url: REDIS_URL, keyPrefix } }),
    counter: async () => {
      const info = await admin.info('stats');
      return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0);
    },
    reset: deleteAll,
    destroy: async () => {
      await deleteAll();
      await admin.quit();
    },
    describe: () => ({ backend, keyPrefix }),
  };
}

/** Rebuilds a queue config in a child process from `BenchStore.describe()`. */
export function configFromDescription(d: ReturnType<BenchStore['describe']>): JobQueueConfig {
  return d.backend === 'postgres'
    ? { backend: 'postgres', databaseConfig: { connectionString: PG_URL }, schema: d.schema }
    : { backend: 'redis', redisConfig: { url: REDIS_URL, keyPrefix: d.keyPrefix } };
}
