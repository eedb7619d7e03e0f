/**
 * `migrate: true` on a PostgreSQL server: the queue applies the shipped migrations to its schema
 * before its first operation, through migrate() and its advisory lock, so queues of several
 * processes starting at once apply each migration once; an up-to-date schema applies nothing.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import { readMigrations } from '../../src/backends/postgres/migrate.js';
import { PG_URL, uniqueName, useQueues } from '../helpers/backends.js';

const schema = uniqueName('qpg_migrate_on_start');
let sql: pg.Pool;
const track = useQueues();

beforeAll(() => {
  sql = new pg.Pool({ connectionString: PG_URL, max: 2 });
});
afterAll(async () => {
  await sql.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await sql.end();
});

async function history(): Promise<string[]> {
  const { rows } = await sql.query<{ name: string }>(`SELECT name FROM "${schema}".queuedev_migrations ORDER BY id`);
  return rows.map((r) => r.name);
}

it('creates the schema before the first operation; queues starting together apply each migration once', async () => {
  const exists = async () =>
    (await sql.query(`SELECT 1 FROM pg_namespace WHERE nspname = $1`, [schema])).rows.length === 1;
  const queues: JobQueue[] = [
    track(initJobQueue({ databaseConfig: { connectionString: PG_URL }, schema, migrate: true })),
    track(initJobQueue({ databaseConfig: { connectionString: PG_URL }, schema, migrate: true })),
    track(initJobQueue({ pool: sql, schema, migrate: true })),
  ];
  // Nothing runs at construction.
  expect(await exists()).toBe(false);
  const ids = await Promise.all(queues.map((q, n) => q.addJob({ jobType: 'a', payload: { n } })));
  expect(new Set(ids).size).toBe(3);
  expect(await history()).toEqual(readMigrations().map((m) => m.name));

  // A later queue on the up-to-date schema applies nothing and sees the jobs.
  const later = track(initJobQueue({ pool: sql, schema, migrate: true }));
  expect(await later.getAllJobs()).toHaveLength(3);
  expect(await history()).toEqual(readMigrations().map((m) => m.name));
});
