/**
 * A connection string naming a database that does not exist: the queue's operations, a
 * processor's start and migrate() reject with StoreUnavailableError (reason `database-missing`)
 * naming the database and how to create it, instead of an untyped `database "x" does not
 * exist` from the driver. The database is never created, so nothing is left behind.
 */
import { afterEach, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors.js';
import { createPool, migrate } from '../../src/index.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import { databaseUrl, uniqueName } from '../helpers/backends.js';

const database = uniqueName('qnodb');
const url = databaseUrl(database);

let queue: JobQueue | undefined;
afterEach(async () => {
  await queue?.close();
  queue = undefined;
});

function expectMissing(error: unknown, settings: string): void {
  expect(error).toBeInstanceOf(StoreUnavailableError);
  const e = error as StoreUnavailableError;
  expect(e.code).toBe('STORE_UNAVAILABLE');
  expect(e.reason).toBe('database-missing');
  expect(e.message).toContain(`database "${database}" does not exist`);
  expect(e.message).toContain(`createdb ${database}`);
  expect(e.message).toContain(`CREATE DATABASE "${database}"`);
  expect(e.message).toContain(settings);
  // The driver's own error, for code that reads its SQLSTATE.
  expect((e.cause as { code?: string }).code).toBe('3D000');
}

it("rejects the queue's operations with StoreUnavailableError (database-missing) naming the database", async () => {
  queue = initJobQueue({ databaseConfig: { connectionString: url } });
  expectMissing(await queue.addJob({ jobType: 'x', payload: {} }).catch((e: unknown) => e), 'connection settings');
  expectMissing(await queue.getJob(1).catch((e: unknown) => e), 'connection settings');
  const start = await queue
    .createProcessor({ x: async () => {} })
    .start()
    .catch((e: unknown) => e);
  expect(start instanceof StoreUnavailableError ? start : (start as Error).cause).toBeInstanceOf(StoreUnavailableError);
});

it('rejects migrate() with the same error, from a URL or a pool', async () => {
  expectMissing(await migrate({ databaseUrl: url }).catch((e: unknown) => e), '`databaseUrl`');
  const pool = createPool({ connectionString: url });
  try {
    expectMissing(await migrate({ pool }).catch((e: unknown) => e), "the pool's settings");
  } finally {
    await pool.end();
  }
});
