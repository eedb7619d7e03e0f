/**
 * Shared setup of the PostgreSQL-only tests: one migrated schema per file (dropped after the
 * file, kept when a test failed), truncated before each test unless told otherwise, and queues
 * closed after each test.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, onTestFailed } from 'vitest';
import { migrate } from '../../src/index.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import type { Clock, PayloadMap, PostgresQueueConfig } from '../../src/types.js';
import { PG_URL, uniqueName } from '../helpers/backends.js';

export interface PostgresTestContext {
  /** The file's schema, migrated. */
  readonly schema: string;
  /** A raw pool for inspecting tables (`"schema".job_queue`, ...). */
  readonly sql: pg.Pool;
  /** A queue on this schema (on `sql` unless a pool or databaseConfig is given), closed after the test. */
  queue(options?: Partial<PostgresQueueConfig> & { clock?: Clock }): JobQueue<PayloadMap>;
  /** `"schema".table` */
  table(name: 'job_queue' | 'job_events' | 'cron_schedules' | 'waitpoint_tokens'): string;
}

export function usePostgres(options: { schemas?: number; truncate?: boolean } = {}): PostgresTestContext & { extraSchemas: string[] } {
  const schema = uniqueName('qpg');
  const extraSchemas = Array.from({ length: options.schemas ?? 0 }, () => uniqueName('qpg'));
  let sql: pg.Pool;
  let queues: JobQueue<PayloadMap>[] = [];
  let failed = false;

  beforeAll(async () => {
    for (const s of [schema, ...extraSchemas]) await migrate({ databaseUrl: PG_URL, schema: s });
    sql = new pg.Pool({ connectionString: PG_URL, max: 10 });
  });
  beforeEach(async () => {
    onTestFailed(() => {
      failed = true;
    });
    for (const s of options.truncate === false ? [] : [schema, ...extraSchemas]) {
      await sql.query(`TRUNCATE "${s}".job_queue, "${s}".job_events, "${s}".cron_schedules, "${s}".waitpoint_tokens RESTART IDENTITY`);
    }
  });
  afterEach(async () => {
    await Promise.all(queues.map((q) => q.close()));
    queues = [];
  });
  afterAll(async () => {
    if (failed) console.warn(`[test] kept schemas ${[schema, ...extraSchemas].join(', ')} after a failure`);
    else for (const s of [schema, ...extraSchemas]) await sql.query(`DROP SCHEMA "${s}" CASCADE`);
    await sql.end();
  });

  return {
    schema,
    extraSchemas,
    get sql() {
      return sql;
    },
    queue(config = {}) {
      const q = initJobQueue({
        backend: 'postgres',
        schema,
        ...(config.databaseConfig ? {} : { pool: sql }),
        ...config,
      } as PostgresQueueConfig);
      queues.push(q);
      return q;
    },
    table(name) {
      return `"${schema}".${name}`;
    },
  };
}

export async function waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
