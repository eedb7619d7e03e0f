/**
 * A queue on a schema nobody migrated (issue 8 item 6): a typed NotMigratedError naming the
 * schema and the exact command to run, instead of `relation "x.job_queue" does not exist`;
 * the dashboard answers 503 with that message.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NotMigratedError } from '../../src/errors.js';
import { migrate } from '../../src/index.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import { PG_URL, uniqueName } from '../helpers/backends.js';
import { dashboardClient, read } from '../dashboard/support.js';

describe('a queue on an unmigrated schema', () => {
  const schema = uniqueName('qfresh');
  const command = `npx queue-cli migrate --schema ${schema}`;
  let pool: pg.Pool;
  /** The running test's queue, closed after it; undefined when the test failed before opening one. */
  let opened: JobQueue | undefined;
  const openQueue = () => (opened = initJobQueue({ backend: 'postgres', pool, schema }));

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: PG_URL, max: 4 });
    // A fresh schema, as a deployment that forgot `queue-cli migrate` has it.
    await pool.query(`CREATE SCHEMA "${schema}"`);
  });
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  it('rejects every operation with NotMigratedError naming the schema and the migrate command', async () => {
    const queue = openQueue();
    for (const call of [
      () => queue.addJob({ jobType: 'x', payload: {} }),
      () => queue.getJob(1),
      () => queue.getJobs(),
      () => queue.addCronJob({ scheduleName: 's', cronExpression: '* * * * *', jobType: 'x', payload: {} }),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotMigratedError);
      expect(error).toMatchObject({ code: 'SCHEMA_NOT_MIGRATED', schema });
      expect((error as Error).message).toContain(`PG_QUEUE_DATABASE=<connection string> ${command}`);
      expect((error as Error).message).toContain(`"${schema}"`);
      expect(((error as Error).cause as { code?: string }).code).toBe('42P01');
    }
  });

  it('passes NotMigratedError to a processor’s onError', async () => {
    const queue = openQueue();
    const reported: Error[] = [];
    await queue
      .createProcessor({ x: async () => {} }, { onError: (e) => reported.push(e) })
      .start()
      .catch(() => undefined);
    expect(reported.length).toBeGreaterThan(0);
    // The processor may add context (`enqueueing due cron jobs failed`), keeping the typed error as cause.
    for (const e of reported) expect(e instanceof NotMigratedError ? e : e.cause).toBeInstanceOf(NotMigratedError);
  });

  it('answers the dashboard API with 503 and the message naming the command', async () => {
    const queue = openQueue();
    const { status, body } = await read(await dashboardClient(queue).get('/api/jobs'));
    expect(status).toBe(503);
    expect(body.code).toBe('SCHEMA_NOT_MIGRATED');
    expect(body.error).toContain(command);
  });
});

describe('a queue on a schema short of the latest migration', () => {
  const schema = uniqueName('qshort');
  let pool: pg.Pool;

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: PG_URL, max: 4 });
    // Every migration but 011, as a deploy that started the new version before migrating has it.
    await migrate({ pool, schema, count: 10 });
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  it('claims fail with NotMigratedError naming the missing column and the migrate command', async () => {
    const queue = initJobQueue({ backend: 'postgres', pool, schema });
    try {
      // Stored as the version before would have (this version's adds need 013's column).
      await pool.query(
        `INSERT INTO "${schema}".job_queue (job_type, payload, run_at, created_at, updated_at) VALUES ('x', '{}', now(), now(), now())`,
      );
      const reported: Error[] = [];
      await queue
        .createProcessor({ x: async () => {} }, { onError: (e) => reported.push(e) })
        .start()
        .catch(() => undefined);
      const error = reported.map((e) => (e instanceof NotMigratedError ? e : e.cause)).find(Boolean);
      expect(error).toBeInstanceOf(NotMigratedError);
      expect((error as Error).message).toContain('lack a column this version uses');
      // The first column of a later migration the claim reads (011's trace_context, 018's kept events).
      expect((error as Error).message).toMatch(
        /column j\.(trace_context|processing_event_id|processing_event_at) does not exist/,
      );
      expect((error as Error).message).toContain(`npx queue-cli migrate --schema ${schema}`);
      expect(((error as Error).cause as { code?: string }).code).toBe('42703');
    } finally {
      await queue.close();
    }
  });

  it('adds fail with NotMigratedError naming the missing column and the migrate command, and store nothing', async () => {
    // Up to 012: the column of 013 (an `added` event kept in its job's row) is missing.
    await migrate({ pool, schema, count: 2 });
    const queue = initJobQueue({ backend: 'postgres', pool, schema });
    try {
      const before = (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".job_queue`)).rows[0].n as number;
      for (const add of [
        () => queue.addJob({ jobType: 'x', payload: {} }),
        () => queue.addJobs([{ jobType: 'x', payload: {} }]),
      ]) {
        const error = await add().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(NotMigratedError);
        expect((error as Error).message).toContain('added_event_id');
        expect((error as Error).message).toContain(`npx queue-cli migrate --schema ${schema}`);
      }
      expect((await pool.query(`SELECT count(*)::int AS n FROM "${schema}".job_queue`)).rows[0].n).toBe(before);
    } finally {
      await queue.close();
    }
  });
});
