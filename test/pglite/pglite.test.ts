/**
 * What is PGlite's own on the `pglite` target of the PostgreSQL backend (the shared behaviour is
 * the conformance suite's): a data directory that keeps the queue across a close and a reopen,
 * migrations applied on start once, the caller's transaction as `db`, rows read exactly as pg
 * reads them from a server, PGlite's errors translated as pg's, and the option checks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pgliteQueryable } from '../../src/backends/postgres/pglite.js';
import {
  ConfigError,
  NotMigratedError,
  StoreRejectedError,
  StoreUnavailableError,
  initJobQueue,
  migrate,
  type JobQueue,
  type PostgresQueueConfig,
} from '../../src/index.js';
import { backendOf } from '../../src/queue.js';
import { PG_URL, useQueues } from '../helpers/backends.js';
import { expectFailure } from '../conformance/assertions.js';

describe('PGlite as the PostgreSQL backend', () => {
  let dirs: string[] = [];
  const track = useQueues();

  afterEach(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    dirs = [];
  });

  function dataDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'queuedev-pglite-'));
    dirs.push(dir);
    return join(dir, 'data');
  }

  it('keeps the jobs of a data directory across a close and a reopen', async () => {
    const dir = dataDir();
    const first = initJobQueue({ pglite: { dataDir: dir }, migrate: true });
    const id = await first.addJob({ jobType: 'email', payload: { to: 'a@example.com' }, tags: ['kept'] });
    await first.close();

    const second = track(initJobQueue({ pglite: { dataDir: dir }, migrate: true }));
    expect(await second.getJob(id)).toMatchObject({
      id,
      jobType: 'email',
      payload: { to: 'a@example.com' },
      tags: ['kept'],
      status: 'pending',
    });
    // The reopened database carries on where it stopped: ids keep counting.
    expect(await second.addJob({ jobType: 'email', payload: {} })).toBe(id + 1);
  });

  it('starts empty in memory without a data directory, and each queue has its own database', async () => {
    const a = track(initJobQueue({ pglite: {}, migrate: true }));
    const b = track(initJobQueue({ pglite: {}, migrate: true }));
    await a.addJob({ jobType: 'a', payload: {} });
    expect(await a.getAllJobs()).toHaveLength(1);
    expect(await b.getAllJobs()).toEqual([]);
  });

  it('wakes a waiting processor through LISTEN/NOTIFY, long before its next poll', async () => {
    const queue = track(initJobQueue({ pglite: {}, migrate: true }));
    const ran: number[] = [];
    const processor = queue.createProcessor(
      { work: async (payload: { n: number }) => void ran.push(payload.n) },
      { pollInterval: 60_000 },
    );
    processor.startInBackground();
    try {
      // Let the first (empty) poll pass, so only a wake-up can start the next claim.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await queue.addJob({ jobType: 'work', payload: { n: 7 } });
      const deadline = Date.now() + 5000;
      while (ran.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(ran).toEqual([7]);
    } finally {
      await processor.stopAndDrain(5000);
    }
  });
});

describe('migrate on start (migrate: true)', () => {
  let instance: PGlite;

  beforeAll(async () => {
    instance = await PGlite.create();
  });
  afterAll(async () => {
    await instance.close();
  });

  it('applies every migration once, and a later queue on the same database applies none', async () => {
    const sql = pgliteQueryable(instance);
    const history = async () =>
      (await sql.query<{ name: string }>('SELECT name FROM public.queuedev_migrations ORDER BY id')).rows.map(
        (r) => r.name,
      );
    const first = initJobQueue({ pglite: instance, migrate: true });
    await first.addJob({ jobType: 'a', payload: {} });
    const applied = await history();
    expect(applied.length).toBeGreaterThan(0);
    expect(new Set(applied).size).toBe(applied.length);
    await first.close();
    // The caller's instance stays open after close().
    expect(instance.closed).toBe(false);

    const second = initJobQueue({ pglite: instance, migrate: true });
    expect(await second.getAllJobs()).toHaveLength(1);
    expect(await history()).toEqual(applied);
    expect(await migrate({ pglite: instance })).toEqual([]);
    await second.close();
  });

  it('migrates the named schema, and a queue without migrate: true reports it was not migrated', async () => {
    const unmigrated = initJobQueue({ pglite: instance, schema: 'not_yet' });
    await expectFailure(unmigrated.addJob({ jobType: 'a', payload: {} }), NotMigratedError, {
      message: ['"not_yet"'],
    });
    const migrating = initJobQueue({ pglite: instance, schema: 'not_yet', migrate: true });
    const id = await migrating.addJob({ jobType: 'a', payload: {} });
    expect(await unmigrated.getJob(id)).toMatchObject({ id, status: 'pending' });
    await Promise.all([unmigrated.close(), migrating.close()]);
  });
});

describe('one PGlite session shared by the queue and its caller', () => {
  let db: PGlite;

  beforeAll(async () => {
    db = await PGlite.create();
  });
  afterAll(async () => {
    await db.close();
  });

  it('queues starting together take turns migrating, and the caller’s statements stay out of a migration', async () => {
    const queues = [
      initJobQueue({ pglite: db, migrate: true, schema: 'together' }),
      initJobQueue({ pglite: db, migrate: true, schema: 'together' }),
    ];
    try {
      // The caller's own statements interleave with the migrations: a failing one run inside a
      // migration's transaction would abort it.
      const [a, b, refused] = await Promise.all([
        queues[0]!.addJob({ jobType: 'a', payload: {} }),
        queues[1]!.addJob({ jobType: 'b', payload: {} }),
        db.query('SELECT 1 / 0').then(
          () => 'ran',
          () => 'refused',
        ),
      ]);
      expect(refused).toBe('refused');
      expect(new Set([a, b]).size).toBe(2);
      const names = await pgliteQueryable(db).query('SELECT name FROM together.queuedev_migrations');
      expect(names.rows.length).toBe(new Set(names.rows.map((r: { name: string }) => r.name)).size);
    } finally {
      await Promise.all(queues.map((q) => q.close()));
    }
  });

  it('an add on the caller’s transaction does not wait for the start-up, which needs the same session', async () => {
    let queue: JobQueue | undefined;
    await db.transaction(async (tx) => {
      // Created while the caller's transaction holds the session: its migrations wait for it.
      queue = initJobQueue({ pglite: db, migrate: true, schema: 'started_later' });
      await expectFailure(queue.addJob({ jobType: 'a', payload: {} }, { db: tx }), NotMigratedError, {
        message: ['"started_later"'],
      });
      await tx.rollback();
    });
    try {
      expect(await queue!.addJob({ jobType: 'a', payload: {} })).toBe(1);
    } finally {
      await queue!.close();
    }
  });
});

describe('a queue without schema on one PGlite session', () => {
  it('looks the schema up on the caller’s transaction for an add on it, instead of waiting for the session', async () => {
    const db = await PGlite.create();
    let queue: JobQueue | undefined;
    try {
      await migrate({ pglite: db });
      const id = await db.transaction(async (tx) => {
        // Created while the caller's transaction holds the session: its own lookup waits for it.
        queue = initJobQueue({ pglite: db });
        return queue.addJob({ jobType: 'a', payload: {} }, { db: tx });
      });
      expect(await queue!.getJob(id)).toMatchObject({ id, jobType: 'a', status: 'pending' });
    } finally {
      await queue?.close();
      await db.close();
    }
  });
});

describe('the caller’s PGlite transaction as `db`', () => {
  let instance: PGlite;
  let queue: JobQueue;

  beforeAll(async () => {
    instance = await PGlite.create();
    queue = initJobQueue({ pglite: instance, migrate: true });
    await queue.getAllJobs();
  });
  afterAll(async () => {
    await queue.close();
    await instance.close();
  });

  it('adds inside the transaction: kept on commit, gone on rollback', async () => {
    const kept = await instance.transaction((tx) => queue.addJob({ jobType: 'kept', payload: {} }, { db: tx }));
    let discarded: number | undefined;
    await instance.transaction(async (tx) => {
      const ids = await queue.addJobs(
        [
          { jobType: 'discarded', payload: {} },
          { jobType: 'discarded', payload: {} },
        ],
        { db: tx },
      );
      discarded = ids[0];
      await tx.rollback();
    });
    expect(await queue.getJob(kept)).toMatchObject({ jobType: 'kept', status: 'pending' });
    expect(await queue.getJob(discarded!)).toBeNull();
    expect((await queue.getAllJobs()).map((j) => j.jobType)).toEqual(['kept']);
  });
});

describe('rows and errors on PGlite are those of a server', () => {
  let instance: PGlite;
  let server: pg.Pool;

  beforeAll(async () => {
    instance = await PGlite.create();
    server = new pg.Pool({ connectionString: PG_URL, max: 1 });
  });
  afterAll(async () => {
    await instance.close();
    await server.end();
  });

  it('returns int8, int8[], timestamptz of any year, json, jsonb, arrays and booleans as pg does', async () => {
    // Session time zones differ between the two; the values must not.
    const statement = `SELECT 9007199254740993::int8 AS big, ARRAY[1, NULL, 9007199254740993]::int8[] AS ids,
      '{}'::int8[] AS none, 42::int4 AS small, 1.5::float8 AS ratio, 12.50::numeric AS money,
      t::timestamptz AS at, $1::jsonb AS doc, '[1,"a"]'::json AS list, ARRAY['a', 'b c']::text[] AS tags,
      true AS yes, NULL::timestamptz AS never
      FROM unnest(ARRAY['0001-01-01 00:00:00+00', '2026-11-24 06:15:46.123456+05:30', '9999-12-31 23:59:59.999+00',
        '275760-09-13 00:00:00+00', '0010-05-01 00:00:00+00 BC', 'infinity', '-infinity']) AS t`;
    const values = [JSON.stringify({ a: [1, 2], b: null })];
    const embedded = await pgliteQueryable(instance).query(statement, values);
    const onServer = await server.query(statement, values);
    expect(embedded.rows).toEqual(onServer.rows);
    expect(embedded.rowCount).toBe(onServer.rowCount);
    expect(embedded.rows[0]).toMatchObject({ big: '9007199254740993', ids: ['1', null, '9007199254740993'] });
  });

  it('rejects with StoreUnavailableError (reason closed) once the caller’s instance is closed under the queue', async () => {
    const own = await PGlite.create();
    const queue = initJobQueue({ pglite: own, migrate: true });
    try {
      await queue.addJob({ jobType: 'a', payload: {} });
      await own.close();
      const error = await expectFailure(queue.addJob({ jobType: 'a', payload: {} }), StoreUnavailableError, {
        message: ['PGlite is closed'],
      });
      expect((error as StoreUnavailableError).reason).toBe('closed');
    } finally {
      await queue.close();
    }
  });

  it('translates PGlite errors by SQLSTATE as pg errors: a value the store refuses is a StoreRejectedError', async () => {
    const queue = initJobQueue({ pglite: instance, migrate: true });
    try {
      const jobId = await queue.addJob({ jobType: 'work', payload: {} });
      await backendOf(queue).claimJobs({ workerId: 'w1', batchSize: 1, now: new Date() });
      // A lone surrogate slips past no validation here (the backend is called directly); jsonb refuses it.
      const error = await expectFailure(
        backendOf(queue).setOutput({ jobId, workerId: 'w1', output: 'x\ud800', now: new Date() }),
        StoreRejectedError,
      );
      expect(error.message).toMatch(/^PostgreSQL refused the values written by setOutput \(SQLSTATE 22[0-9A-Z]{3}\): /);
      expect(error.cause).toMatchObject({ code: expect.stringMatching(/^22/) });
    } finally {
      await queue.close();
    }
  });
});

describe('pglite option checks', () => {
  it.each([
    ['an unknown option', { dataDri: './data' }, ['`pglite.dataDri`', 'dataDir']],
    ['an empty dataDir', { dataDir: '' }, ['`pglite.dataDir`', 'a non-empty string', '""']],
    ['a dataDir that is not a string', { dataDir: 7 }, ['`pglite.dataDir`', 'a non-empty string', '7']],
    ['an object with only some of PGlite’s methods', { query: () => undefined }, ['`pglite.query`']],
    ['null', null, ['`pglite`', 'a PGlite instance or an object { dataDir? }', 'null']],
  ])('refuses %s at construction with a ConfigError', async (_label, pglite, fragments) => {
    await expectFailure(() => initJobQueue({ pglite } as unknown as PostgresQueueConfig), ConfigError, {
      message: fragments,
    });
  });

  it('migrate() refuses pglite together with another database, and a pglite that is not an instance', async () => {
    const instance = new PGlite();
    try {
      await expectFailure(migrate({ pglite: instance, databaseUrl: PG_URL }), ConfigError, {
        message: ['`databaseUrl`', '`pglite`', 'not'],
      });
      await expectFailure(migrate({ pglite: {} as PGlite }), ConfigError, {
        message: ['`pglite`', 'a PGlite instance'],
      });
    } finally {
      await instance.close();
    }
  });
});
