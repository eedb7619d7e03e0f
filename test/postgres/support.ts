/**
 * Shared setup of the PostgreSQL-only tests, on the common store set-up of test/helpers: one
 * migrated schema per file (dropped after the file, kept when a test failed), truncated before
 * each test unless told otherwise, and queues closed after each test.
 */
import type pg from 'pg';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { Clock, PostgresQueueConfig } from '../../src/types.js';
import { usePostgresSchemas, useQueues } from '../helpers/backends.js';

export interface PostgresTestContext {
  /** The file's schema, migrated. */
  readonly schema: string;
  /** A raw pool for inspecting tables (`"schema".job_queue`, ...). */
  readonly sql: pg.Pool;
  /** A queue on this schema (on `sql` unless a pool or databaseConfig is given), closed after the test. */
  queue(options?: Partial<PostgresQueueConfig> & { clock?: Clock }): JobQueue;
  /** `"schema".table` */
  table(name: 'job_queue' | 'job_events' | 'cron_schedules' | 'waitpoint_tokens' | 'job_throughput'): string;
}

export function usePostgres(
  options: { schemas?: number; truncate?: boolean; ownDatabase?: boolean } = {},
): PostgresTestContext & { extraSchemas: string[] } {
  const store = usePostgresSchemas({
    prefix: 'qpg',
    count: 1 + (options.schemas ?? 0),
    truncate: options.truncate,
    ownDatabase: options.ownDatabase,
  });
  const [schema, ...extraSchemas] = store.schemas as [string, ...string[]];
  const track = useQueues();

  return {
    schema,
    extraSchemas,
    get sql() {
      return store.sql;
    },
    queue(config = {}) {
      return track(
        initJobQueue({
          backend: 'postgres',
          schema,
          ...(config.databaseConfig ? {} : { pool: store.sql }),
          ...config,
        }),
      );
    },
    table(name) {
      return `"${schema}".${name}`;
    },
  };
}
