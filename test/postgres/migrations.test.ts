/**
 * `queue-cli migrate` (SPEC §4.12), run as a child process through tsx against a fresh database,
 * and the package's migrate() that the CLI, the test harness, the benchmark and the examples use.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, initJobQueue, migrate, type MigrateOptions } from '../../src/index.js';
import { backendOf } from '../../src/queue.js';
import { cli as runCli, ROOT } from '../cli/run-cli.js';
import { PG_URL, databaseUrl, uniqueName } from '../helpers/backends.js';

const ALL_MIGRATIONS = [
  '001_initial',
  '002_cron_and_waits',
  '003_due_and_scheduled_lanes',
  '004_cheaper_adds',
  '005_completion_wake_hint',
  '006_parked_jobs',
  '007_cleanup_batches',
  '008_claim_plans',
  '009_parked_group_turns',
  '010_ascending_list_indexes',
  '011_trace_context',
  '012_overview',
  '013_added_event_in_row',
  '014_added_events_floor',
  '015_unpark_wakes',
  '016_lane_plans_kept',
  '017_cascade_hint',
  '018_run_events_in_row',
  '019_bulk_action_batches',
];
const ALL_TABLES = [
  'cron_schedules',
  'job_events',
  'job_queue',
  'job_queue_added_events_floor',
  'job_queue_run_events_floor',
  'job_throughput',
  'queuedev_migrations',
  'waitpoint_tokens',
];

/** Runs queue-cli with exactly `env` (plus PATH), never the test process's PG_QUEUE_DATABASE. */
const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, ROOT, env);

describe('queue-cli migrate (postgres)', () => {
  const database = uniqueName('qd_cli_db');
  const dbUrl = databaseUrl(database);
  let admin: pg.Client;
  let db: pg.Pool;
  let tmp: string;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    db = new pg.Pool({ connectionString: dbUrl, max: 2 });
    // DROP DATABASE ... WITH (FORCE) below may cut a connection that is still closing.
    db.on('error', () => undefined);
    tmp = mkdtempSync(join(tmpdir(), 'queue-cli-'));
  });
  afterAll(async () => {
    await db.end();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    rmSync(tmp, { recursive: true, force: true });
  });

  async function tablesIn(schema: string): Promise<string[]> {
    const { rows } = await db.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
      [schema],
    );
    return rows.map((r) => r.table_name);
  }

  async function history(schema: string): Promise<string[]> {
    const { rows } = await db.query(`SELECT name FROM "${schema}".queuedev_migrations ORDER BY id`);
    return rows.map((r) => r.name);
  }

  it('creates a missing schema with -s, applies the migrations once and records them in queuedev_migrations', async () => {
    const schema = 'jobs_fresh';
    const first = await cli(['migrate', '-s', schema], { PG_QUEUE_DATABASE: dbUrl });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('001_initial');
    expect(first.stdout).toContain('002_cron_and_waits');
    expect(first.stderr).not.toContain("Can't determine timestamp");
    expect(await tablesIn(schema)).toEqual(ALL_TABLES);
    expect(await history(schema)).toEqual(ALL_MIGRATIONS);
    // Nothing went to public.
    expect(await tablesIn('public')).toEqual([]);

    const again = await cli(['migrate', '--schema', schema], { PG_QUEUE_DATABASE: dbUrl });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('No migrations to run');
    expect(await history(schema)).toEqual(ALL_MIGRATIONS);
  });

  it('uses the public schema without -s, and each `migrate down` undoes the last migration', async () => {
    const up = await cli(['migrate'], { PG_QUEUE_DATABASE: dbUrl });
    expect(up.code, up.stderr).toBe(0);
    expect(await tablesIn('public')).toEqual(ALL_TABLES);

    // The migrations after 002 add no table but 012's job_throughput and the floors of 014 and 018.
    const tableOf: Record<string, string> = {
      '012_overview': 'job_throughput',
      '014_added_events_floor': 'job_queue_added_events_floor',
      '018_run_events_in_row': 'job_queue_run_events_floor',
    };
    for (let last = ALL_MIGRATIONS.length - 1; last >= 2; last--) {
      const downIndexes = await cli(['migrate', 'down'], { PG_QUEUE_DATABASE: dbUrl });
      expect(downIndexes.code, downIndexes.stderr).toBe(0);
      const applied = ALL_MIGRATIONS.slice(0, last);
      expect(await tablesIn('public')).toEqual(
        ALL_TABLES.filter((t) => !Object.entries(tableOf).some(([m, table]) => table === t && !applied.includes(m))),
      );
      expect(await history('public')).toEqual(ALL_MIGRATIONS.slice(0, last));
    }

    const down = await cli(['migrate', 'down'], { PG_QUEUE_DATABASE: dbUrl });
    expect(down.code, down.stderr).toBe(0);
    expect(await tablesIn('public')).toEqual(['job_events', 'job_queue', 'queuedev_migrations']);
    expect(await history('public')).toEqual(['001_initial']);

    const downAgain = await cli(['migrate', 'down'], { PG_QUEUE_DATABASE: dbUrl });
    expect(downAgain.code, downAgain.stderr).toBe(0);
    expect(await tablesIn('public')).toEqual(['queuedev_migrations']);
    expect(await history('public')).toEqual([]);
    // One CLI process per migration.
  }, 90_000);

  it('--dry-run lists what would run and changes nothing, not even the schema', async () => {
    const dry = await cli(['migrate', '-s', 'jobs_dry', '--dry-run'], { PG_QUEUE_DATABASE: dbUrl });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('dry run: would apply 001_initial');
    expect(dry.stdout).toContain('dry run: would apply 002_cron_and_waits');
    expect(await tablesIn('jobs_dry')).toEqual([]);
  });

  it('takes the connection string from --database-url, and `redo` undoes and reapplies the last migration', async () => {
    const up = await cli(['migrate', '-s', 'jobs_redo', '--database-url', dbUrl]);
    expect(up.code, up.stderr).toBe(0);
    const redo = await cli(['migrate', 'redo', '-s', 'jobs_redo', `--database-url=${dbUrl}`]);
    expect(redo.code, redo.stderr).toBe(0);
    expect(redo.stdout).toContain(`Undid ${ALL_MIGRATIONS.at(-1)!}`);
    expect(redo.stdout).toContain(`Applied ${ALL_MIGRATIONS.at(-1)!}`);
    expect(await history('jobs_redo')).toEqual(ALL_MIGRATIONS);
  });

  it('loads the connection string from an --envPath file', async () => {
    const file = join(tmp, 'queue.env');
    writeFileSync(file, `# queue settings\nexport PG_QUEUE_DATABASE="${dbUrl}"\n`);
    const run = await cli(['migrate', '--envPath', file, '-s', 'jobs_env']);
    expect(run.code, run.stderr).toBe(0);
    expect(await history('jobs_env')).toEqual(ALL_MIGRATIONS);
  });

  it('fails clearly, with exit code 1, on a missing PG_QUEUE_DATABASE, an unreadable --envPath, a bad schema name', async () => {
    const [noUrl, noFile, badSchema] = await Promise.all([
      cli(['migrate', '-s', 'jobs_missing']),
      cli(['migrate', '--envPath', join(tmp, 'missing.env')]),
      cli(['migrate', '-s', 'bad-name'], { PG_QUEUE_DATABASE: dbUrl }),
    ]);
    expect(noUrl.code).toBe(1);
    expect(noUrl.stderr).toContain('PG_QUEUE_DATABASE is not set');
    expect(noFile.code).toBe(1);
    expect(noFile.stderr).toContain('missing.env');
    expect(badSchema.code).toBe(1);
    expect(badSchema.stderr).toContain('`--schema`');
    expect(badSchema.stderr).toContain('"bad-name"');
    expect(await tablesIn('jobs_missing')).toEqual([]);
  });

  it('reports a failed connection in one line with the cause and the fix, without a stack, exit code 1', async () => {
    // Nothing listens on this port.
    const refused = await cli(['migrate'], { PG_QUEUE_DATABASE: 'postgres://app:secret@127.0.0.1:6461/app' });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      'queue-cli migrate: cannot connect to PostgreSQL at 127.0.0.1:6461/app (ECONNREFUSED): check that PostgreSQL is running there and that PG_QUEUE_DATABASE (or --database-url) names it',
    ]);
    expect(refused.stderr).not.toContain('secret');
  });

  it('reports a missing database in one line that says to create it', async () => {
    const missing = await cli(['migrate'], { PG_QUEUE_DATABASE: databaseUrl(`${database}_absent`) });
    expect(missing.code).toBe(1);
    const lines = missing.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^queue-cli migrate: PostgreSQL database ".*_absent" on .*:\d+ does not exist: create it \(`createdb .*_absent` on the server, or `CREATE DATABASE ".*_absent"`/,
    );
    expect(lines[0]).toContain('or fix the database name in PG_QUEUE_DATABASE (or --database-url)');
  });

  it('refuses an unknown option with the usage, exit code 1', async () => {
    const run = await cli(['migrate', '--frobnicate'], { PG_QUEUE_DATABASE: dbUrl });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('unknown argument "--frobnicate"');
    expect(run.stderr).toContain('Usage: queue-cli migrate');
  });
});

describe('migrate() (postgres)', () => {
  const schemas = [uniqueName('qpg_mig'), uniqueName('qpg_mig')];
  let pool: pg.Pool;

  beforeAll(() => {
    pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
  });
  afterAll(async () => {
    for (const s of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await pool.end();
  });

  it('is safe to call several times at once, for one schema and for several', async () => {
    const runs = await Promise.all(
      [...schemas, ...schemas, schemas[0]!].map((schema) => migrate({ databaseUrl: PG_URL, schema })),
    );
    // Each schema migrated exactly once; the other calls found nothing to do.
    expect(runs.filter((r) => r.length === ALL_MIGRATIONS.length)).toHaveLength(2);
    expect(runs.filter((r) => r.length === 0)).toHaveLength(3);
    for (const s of schemas) {
      const { rows } = await pool.query(`SELECT name FROM "${s}".queuedev_migrations ORDER BY id`);
      expect(rows.map((r) => r.name)).toEqual(ALL_MIGRATIONS);
    }
  });

  it('continues a schema whose history node-pg-migrate wrote, and keeps that table layout', async () => {
    const schema = uniqueName('qpg_mig');
    schemas.push(schema);
    // The state an earlier version left: its history table DDL and row, 001 applied.
    const client = await pool.connect();
    try {
      await client.query(`CREATE SCHEMA "${schema}"`);
      await client.query(`SET search_path TO "${schema}"`);
      await client.query(
        `CREATE TABLE "${schema}"."queuedev_migrations" (id SERIAL PRIMARY KEY, name varchar(255) NOT NULL, run_on timestamp NOT NULL)`,
      );
      const sql = readFileSync(new URL('../../migrations/001_initial.sql', import.meta.url), 'utf8');
      await client.query(sql.slice(0, sql.indexOf('-- Down Migration')));
      await client.query(`INSERT INTO "${schema}"."queuedev_migrations" (name, run_on) VALUES ('001_initial', NOW())`);
    } finally {
      await client.query('RESET search_path');
      client.release();
    }
    expect(await migrate({ databaseUrl: PG_URL, schema })).toEqual(ALL_MIGRATIONS.slice(1).map((name) => ({ name })));
    const { rows } = await pool.query(
      `SELECT column_name, data_type, character_maximum_length AS len, is_nullable FROM information_schema.columns
       WHERE table_schema = $1 AND table_name = 'queuedev_migrations' ORDER BY ordinal_position`,
      [schema],
    );
    expect(rows).toEqual([
      { column_name: 'id', data_type: 'integer', len: null, is_nullable: 'NO' },
      { column_name: 'name', data_type: 'character varying', len: 255, is_nullable: 'NO' },
      { column_name: 'run_on', data_type: 'timestamp without time zone', len: null, is_nullable: 'NO' },
    ]);
  });

  it('refuses to migrate a schema whose history names a migration this version does not ship', async () => {
    const schema = uniqueName('qpg_mig');
    schemas.push(schema);
    await migrate({ databaseUrl: PG_URL, schema });
    await pool.query(
      `INSERT INTO "${schema}".queuedev_migrations (name, run_on) VALUES ('999_from_the_future', NOW())`,
    );
    await expect(migrate({ databaseUrl: PG_URL, schema })).rejects.toThrow(
      /lists 999_from_the_future, which this version of queuedev does not ship; upgrade queuedev/,
    );
  });

  it('applies 002_cron_and_waits on top of a released 001 schema: jobs kept, tables and indexes created', async () => {
    const schema = uniqueName('qpg_mig');
    schemas.push(schema);
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 1 })).toEqual([{ name: '001_initial' }]);
    const before = await queueBefore013(pool, schema);
    const jobId = await before.addJob({ jobType: 'old', payload: { kept: true } });
    await before.close();

    expect(await migrate({ databaseUrl: PG_URL, schema, count: 1 })).toEqual([{ name: '002_cron_and_waits' }]);
    const { rows: indexes } = await pool.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename IN ('cron_schedules', 'waitpoint_tokens', 'job_queue')`,
      [schema],
    );
    const def = (name: string) => indexes.find((r) => r.indexname === name)?.indexdef as string | undefined;
    expect(def('cron_schedules_schedule_name_key')).toContain('UNIQUE INDEX');
    expect(def('cron_schedules_due_idx')).toMatch(/\(next_run_at, id\) WHERE \(status = 'active'::text\)/);
    expect(def('waitpoint_tokens_timeout_idx')).toMatch(
      /\(timeout_at\) WHERE \(\(status = 'waiting'::text\) AND \(timeout_at IS NOT NULL\)\)/,
    );
    expect(def('waitpoint_tokens_job_id_idx')).toContain('(job_id)');
    expect(def('job_queue_wait_token_idx')).toMatch(/\(wait_token_id\) WHERE/);

    const after = initJobQueue({ backend: 'postgres', pool, schema });
    try {
      expect(await after.getJob(jobId)).toMatchObject({ jobType: 'old', payload: { kept: true }, status: 'pending' });
      const cronId = await after.addCronJob({
        scheduleName: 'upgrade',
        cronExpression: '* * * * *',
        jobType: 'tick',
        payload: {},
      });
      expect((await after.getCronJob(cronId))?.scheduleName).toBe('upgrade');
      const { id: tokenId } = await after.createToken();
      expect((await after.getToken(tokenId))?.status).toBe('waiting');
    } finally {
      await after.close();
    }

    // Down undoes 002 only.
    expect(await migrate({ databaseUrl: PG_URL, schema, direction: 'down' })).toEqual([{ name: '002_cron_and_waits' }]);
    const { rows: tables } = await pool.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
      [schema],
    );
    expect(tables.map((r) => r.table_name)).toEqual(['job_events', 'job_queue', 'queuedev_migrations']);
  });
});

/**
 * The scratch schema of one upgrade test block, and a pool on its database: the block migrates
 * it step by step; it is dropped after the block.
 */
function useUpgradeSchema(): { readonly schema: string; readonly pool: pg.Pool } {
  const schema = uniqueName('qpg_mig');
  let pool: pg.Pool;
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: PG_URL, max: 2 });
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });
  return {
    schema,
    get pool() {
      return pool;
    },
  };
}

/**
 * The claims of this version return a column a later migration adds (011's trace_context).
 * Tests that claim on a schema short of it, to see an older migration's functions at work, add
 * that column first, and drop it before migrating on.
 */
async function addClaimedColumns(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`ALTER TABLE "${schema}".job_queue ADD COLUMN trace_context text`);
}

async function dropClaimedColumns(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`ALTER TABLE "${schema}".job_queue DROP COLUMN trace_context`);
}

/**
 * On a schema short of 013, the column this version's plain adds write (each keeps its `added`
 * event in the job's row), and its removal: the events kept in rows become rows of job_events,
 * as 013's down part does, and the schema is as its own migrations made it.
 */
async function addAddedEventColumn(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`ALTER TABLE "${schema}".job_queue ADD COLUMN added_event_id bigint`);
}

async function dropAddedEventColumn(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(
    `INSERT INTO "${schema}".job_events (id, job_id, event_type, created_at, metadata)
     SELECT added_event_id, id, 'added', created_at, NULL FROM "${schema}".job_queue WHERE added_event_id IS NOT NULL`,
  );
  await pool.query(`ALTER TABLE "${schema}".job_queue DROP COLUMN added_event_id`);
}

/** Runs the up or the down part of a migration file on `schema`, as `queue-cli migrate` would. */
async function runMigrationPart(pool: pg.Pool, schema: string, file: string, part: 'up' | 'down'): Promise<void> {
  const sql = readFileSync(new URL(`../../migrations/${file}`, import.meta.url), 'utf8');
  const split = sql.indexOf('-- Down Migration');
  const client = await pool.connect();
  try {
    await client.query(`SET search_path TO "${schema}"`);
    await client.query(part === 'up' ? sql.slice(0, split) : sql.slice(split));
  } finally {
    await client.query('RESET search_path');
    client.release();
  }
}

/**
 * On a schema short of 017, the function this version's cascade asks first (tests that cancel
 * or fail jobs there), from 017's own up part; and its removal, before migrating on.
 */
async function addCascadeHint(pool: pg.Pool, schema: string): Promise<void> {
  await runMigrationPart(pool, schema, '017_cascade_hint.sql', 'up');
}

async function dropCascadeHint(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP FUNCTION "${schema}".job_queue_has_live_dependents(bigint[])`);
}

/**
 * On a schema short of 018, the columns and floor this version's claims, completions and
 * history read (the events a job keeps in its row), from 018's own up part; and its down part,
 * which writes those events back to job_events, before migrating on.
 */
async function addRunEventsInRow(pool: pg.Pool, schema: string): Promise<void> {
  await runMigrationPart(pool, schema, '018_run_events_in_row.sql', 'up');
}

async function dropRunEventsInRow(pool: pg.Pool, schema: string): Promise<void> {
  await runMigrationPart(pool, schema, '018_run_events_in_row.sql', 'down');
}

/** This version's queue on a schema short of 013, storing jobs as an older version would have. */
async function queueBefore013(pool: pg.Pool, schema: string): Promise<ReturnType<typeof initJobQueue>> {
  await addAddedEventColumn(pool, schema);
  await addCascadeHint(pool, schema);
  await addRunEventsInRow(pool, schema);
  const queue = initJobQueue({ backend: 'postgres', pool, schema });
  const close = queue.close.bind(queue);
  return Object.assign(queue, {
    close: async () => {
      await close();
      await dropRunEventsInRow(pool, schema);
      await dropAddedEventColumn(pool, schema);
      await dropCascadeHint(pool, schema);
    },
  });
}

describe('003_due_and_scheduled_lanes on a schema with jobs (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;
  const NOW = new Date('2030-01-01T00:00:00.000Z');
  const hour = 3_600_000;

  it('keeps every job, and each becomes claimable at its time in priority order', async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 2 })).toHaveLength(2);
    // Jobs as 002 stored them: due, scheduled ahead, failed with a retry to come, waiting.
    await db.pool.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, status, priority, run_at, next_attempt_at, wait_until,
         attempts, created_at, updated_at)
       VALUES ('due', '{}', 'pending', 1, $1, NULL, NULL, 0, $1, $1),
              ('future', '{}', 'pending', 4, $2, NULL, NULL, 0, $1, $1),
              ('retry', '{}', 'failed', 3, $1, $2, NULL, 1, $1, $1),
              ('waiting', '{}', 'waiting', 2, $1, NULL, $2, 1, $1, $1),
              ('later', '{}', 'pending', 9, $3, NULL, NULL, 0, $1, $1)`,
      [new Date(NOW.getTime() - hour), new Date(NOW.getTime() + hour), new Date(NOW.getTime() + 3 * hour)],
    );
    expect(await migrate({ databaseUrl: PG_URL, schema })).toEqual(ALL_MIGRATIONS.slice(2).map((name) => ({ name })));

    const queue = initJobQueue({ backend: 'postgres', pool: db.pool, schema });
    const backend = backendOf(queue);
    try {
      const claim = async (at: number) =>
        (await backend.claimJobs({ workerId: 'w', batchSize: 10, now: new Date(NOW.getTime() + at) })).map(
          (j) => j.jobType,
        );
      expect(await claim(0)).toEqual(['due']);
      expect(await claim(2 * hour)).toEqual(['future', 'retry', 'waiting']);
      expect(await claim(4 * hour)).toEqual(['later']);
    } finally {
      await queue.close();
    }
  });
});

describe('006_parked_jobs on a schema with jobs (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;
  const NOW = new Date('2030-01-01T00:00:00.000Z');

  it('keeps every job; a blocked one is parked by a claim and runs once its prerequisite completes', async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 3 })).toHaveLength(3);
    const before = new Date(NOW.getTime() - 60_000);
    const { rows } = await db.pool.query<{ id: string }>(
      `INSERT INTO "${schema}".job_queue (job_type, payload, priority, run_at, created_at, updated_at)
       VALUES ('first', '{}', 1, $1, $1, $1) RETURNING id`,
      [before],
    );
    const first = rows[0]!.id;
    await db.pool.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, priority, run_at, created_at, updated_at, depends_on_job_ids)
       VALUES ('dependent', '{}', 9, $1, $1, $1, ARRAY[$2::bigint]), ('plain', '{}', 0, $1, $1, $1, NULL)`,
      [before, first],
    );
    expect(await migrate({ databaseUrl: PG_URL, schema })).toEqual(ALL_MIGRATIONS.slice(3).map((name) => ({ name })));

    const queue = initJobQueue({ backend: 'postgres', pool: db.pool, schema });
    const backend = backendOf(queue);
    try {
      const claim = async (batchSize: number) =>
        (await backend.claimJobs({ workerId: 'w', batchSize, now: NOW })).map((j) => j.jobType);
      expect(await claim(1)).toEqual(['first']);
      expect(await claim(10)).toEqual(['plain']);
      const parked = await db.pool.query(
        `SELECT parked_reason FROM "${schema}".job_queue WHERE job_type = 'dependent'`,
      );
      expect(parked.rows).toEqual([{ parked_reason: 'prerequisites' }]);
      await backend.completeJobs([{ jobId: Number(first), workerId: 'w' }], NOW);
      expect(await claim(10)).toEqual(['dependent']);
    } finally {
      await queue.close();
    }
  });
});

describe('004_cheaper_adds on a schema with jobs and events (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;
  const NOW = new Date('2030-01-01T00:00:00.000Z');

  const snapshot = async () => ({
    jobs: (await db.pool.query(`SELECT * FROM "${schema}".job_queue ORDER BY id`)).rows,
    events: (await db.pool.query(`SELECT * FROM "${schema}".job_events ORDER BY id`)).rows,
  });

  /** The indexes of job_events, as their definitions. */
  const eventIndexes = async () =>
    (
      await db.pool.query(
        `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'job_events' ORDER BY 1`,
        [schema],
      )
    ).rows.map((r) => (r.indexdef as string).replace(` "${schema}".`, ' ').replace(` ${schema}.`, ' '));

  /** Ids of the jobs carrying `tags`, read through job_queue_tags_idx only. */
  async function taggedThroughIndex(tags: string[]): Promise<number[]> {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const sql = `SELECT id FROM "${schema}".job_queue j WHERE j.tags @> $1::text[] AND j.tags <> '{}' ORDER BY id`;
      const plan = (await client.query(`EXPLAIN (FORMAT JSON) ${sql}`, [tags])).rows[0]['QUERY PLAN'];
      expect(JSON.stringify(plan)).toContain('"Index Name":"job_queue_tags_idx"');
      const { rows } = await client.query(sql, [tags]);
      await client.query('COMMIT');
      return rows.map((r) => Number(r.id));
    } finally {
      client.release();
    }
  }

  it('keeps every job and event; tag filters and tag barriers see the tagged jobs stored before; events keep two indexes', async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 3 })).toHaveLength(3);
    // Jobs and events as 003 stored them: tagged and untagged, one behind a tag barrier.
    const { rows } = await db.pool.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, status, run_at, tags, depends_on_tags, created_at, updated_at)
       VALUES ('tagged', '{}', 'pending', $1, '{a,b}', NULL, $1, $1),
              ('plain', '{}', 'pending', $1, '{}', NULL, $1, $1),
              ('blocked', '{}', 'pending', $1, '{}', '{a}', $1, $1),
              ('done', '{}', 'completed', $1, '{a}', NULL, $1, $1)
       RETURNING id`,
      [NOW],
    );
    const [tagged, plain, blocked, done] = rows.map((r) => Number(r.id)) as [number, number, number, number];
    await db.pool.query(
      `INSERT INTO "${schema}".job_events (job_id, event_type, created_at, metadata)
       SELECT id, 'added', $1, jsonb_build_object('jobType', job_type, 'tags', to_jsonb(tags), 'idempotencyKey', NULL)
       FROM "${schema}".job_queue`,
      [NOW],
    );
    const before = await snapshot();
    const indexesBefore = await eventIndexes();
    expect(indexesBefore).toHaveLength(3);

    expect(await migrate({ databaseUrl: PG_URL, schema, count: 1 })).toEqual([{ name: '004_cheaper_adds' }]);
    expect(await snapshot()).toEqual(before);
    // Events: two btrees, the primary key (job_id, id) and created_at.
    expect(await eventIndexes()).toEqual([
      'CREATE INDEX job_events_created_at_idx ON job_events USING btree (created_at)',
      'CREATE UNIQUE INDEX job_events_pkey ON job_events USING btree (job_id, id)',
    ]);
    expect(await taggedThroughIndex(['a'])).toEqual([tagged, done]);

    // The queue's statements need every later migration too.
    expect(await migrate({ databaseUrl: PG_URL, schema })).toEqual(ALL_MIGRATIONS.slice(4).map((name) => ({ name })));
    const queue = initJobQueue({ backend: 'postgres', pool: db.pool, schema });
    try {
      expect((await queue.getJobsByTags(['a'])).map((j) => j.id).sort()).toEqual([tagged, done]);
      expect((await queue.getJobEvents(plain)).map((e) => e.eventType)).toEqual(['added']);
      // The barrier holds while the tagged job is active, then lets the blocked job run.
      const claim = async () =>
        (await backendOf(queue).claimJobs({ workerId: 'w', batchSize: 10, now: NOW })).map((j) => j.id).sort();
      expect(await claim()).toEqual([tagged, plain]);
      await backendOf(queue).completeJobs([{ jobId: tagged, workerId: 'w' }], NOW);
      expect(await claim()).toEqual([blocked]);
    } finally {
      await queue.close();
    }

    // And back: the down part restores 003's indexes without touching a row.
    const ids = async () => {
      const { jobs, events } = await snapshot();
      return { jobs: jobs.map((j) => j.id as string), events: events.map((e) => e.id as string) };
    };
    // Down to 018's down part first: it writes the events the claims and the completion above
    // kept in their rows out to job_events.
    const from018 = ALL_MIGRATIONS.length - ALL_MIGRATIONS.indexOf('018_run_events_in_row');
    await migrate({ databaseUrl: PG_URL, schema, direction: 'down', count: from018 });
    const after = await ids();
    await migrate({ databaseUrl: PG_URL, schema, direction: 'down', count: ALL_MIGRATIONS.length - 3 - from018 });
    expect(await ids()).toEqual(after);
    expect(await eventIndexes()).toEqual(indexesBefore);
    expect(await migrate({ databaseUrl: PG_URL, schema })).toEqual(ALL_MIGRATIONS.slice(3).map((name) => ({ name })));
  });
});

describe('005_completion_wake_hint on a schema with jobs (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;

  it('keeps every job; a completion then releases its dependent', async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 3 })).toHaveLength(3);
    const before = await queueBefore013(db.pool, schema);
    const first = await before.addJob({ jobType: 'first', payload: {} });
    const second = await before.addJob({ jobType: 'second', payload: {}, dependsOn: { jobIds: [first] } });
    await before.close();
    expect(await migrate({ databaseUrl: PG_URL, schema })).toEqual(ALL_MIGRATIONS.slice(3).map((name) => ({ name })));

    const queue = initJobQueue({ backend: 'postgres', pool: db.pool, schema });
    const backend = backendOf(queue);
    try {
      const claim = async () =>
        (await backend.claimJobs({ workerId: 'w', batchSize: 10, now: new Date() })).map((j) => j.id);
      expect(await claim()).toEqual([first]);
      expect(await backend.completeJobs([{ jobId: first, workerId: 'w' }], new Date())).toEqual([first]);
      expect(await claim()).toEqual([second]);
    } finally {
      await queue.close();
    }
  });
});

describe('007_cleanup_batches on a schema with jobs (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;

  it('keeps every job; a cleanup then removes the finished one with its events, and old events', async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 6 })).toHaveLength(6);
    const before = await queueBefore013(db.pool, schema);
    const done = await before.addJob({ jobType: 'done', payload: {} });
    const kept = await before.addJob({ jobType: 'kept', payload: {} });
    await before.close();
    expect(await migrate({ databaseUrl: PG_URL, schema })).toEqual(ALL_MIGRATIONS.slice(6).map((name) => ({ name })));

    const queue = initJobQueue({ backend: 'postgres', pool: db.pool, schema });
    try {
      expect((await queue.getJobs()).map((j) => j.id)).toEqual([kept, done]);
      // The claim of the current version needs the later migrations too, so the job ends after them.
      const backend = backendOf(queue);
      const claim = { workerId: 'w', batchSize: 1, jobTypes: ['done'], now: new Date() };
      expect((await backend.claimJobs(claim)).map((j) => j.id)).toEqual([done]);
      expect(await backend.completeJobs([{ jobId: done, workerId: 'w' }], new Date())).toEqual([done]);
      const later = new Date(Date.now() + 60_000);
      expect(await backendOf(queue).cleanupOldJobs({ olderThan: later, batchSize: 10 })).toBe(1);
      expect(await queue.getJob(done)).toBeNull();
      expect(await queue.getJobEvents(done)).toEqual([]);
      expect(await backendOf(queue).cleanupOldJobEvents({ olderThan: later, batchSize: 10 })).toBe(1);
      expect(await queue.getJobEvents(kept)).toEqual([]);
      expect((await queue.getJob(kept))?.status).toBe('pending');
    } finally {
      await queue.close();
    }
  });
});

describe('008_claim_plans on a schema with jobs (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;
  const NOW = new Date('2030-01-01T00:00:00.000Z');

  const ids = async () =>
    (await db.pool.query<{ id: string }>(`SELECT id FROM "${schema}".job_queue ORDER BY id`)).rows.map((r) => r.id);

  it('keeps every job; claims then take them in order, by type, once due, and after their prerequisite', async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 7 })).toHaveLength(7);
    const before = await queueBefore013(db.pool, schema);
    const hourAgo = new Date(NOW.getTime() - 3_600_000);
    const low = await before.addJob({ jobType: 'a', payload: {}, runAt: hourAgo });
    const high = await before.addJob({ jobType: 'a', payload: {}, priority: 5, runAt: hourAgo });
    const typed = await before.addJob({ jobType: 'b', payload: {}, runAt: hourAgo });
    const dependent = await before.addJob({ jobType: 'a', payload: {}, priority: 9, dependsOn: { jobIds: [low] } });
    // Scheduled when added; due at NOW.
    const later = await before.addJob({ jobType: 'a', payload: {}, runAt: new Date(NOW.getTime() - 1000) });
    await before.close();
    const stored = await ids();
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 1 })).toEqual([{ name: '008_claim_plans' }]);
    expect(await ids()).toEqual(stored);
    // The later ones too: this version's completions count into 012's table.
    await migrate({ databaseUrl: PG_URL, schema });

    const queue = initJobQueue({ backend: 'postgres', pool: db.pool, schema });
    const backend = backendOf(queue);
    try {
      const claim = async (batchSize: number, jobTypes?: string[]) =>
        (await backend.claimJobs({ workerId: 'w', batchSize, now: NOW, ...(jobTypes ? { jobTypes } : {}) })).map(
          (j) => j.id,
        );
      expect(await claim(1, ['b'])).toEqual([typed]);
      expect(await claim(2)).toEqual([high, low]);
      expect(await claim(10)).toEqual([later]);
      expect(await backend.completeJobs([{ jobId: low, workerId: 'w' }], NOW)).toEqual([low]);
      expect(await claim(10)).toEqual([dependent]);
    } finally {
      await queue.close();
    }

    // And back (with the migrations after it): the down part drops the functions and restores
    // 005's hint without touching a row.
    const after = await ids();
    await migrate({ databaseUrl: PG_URL, schema, direction: 'down', count: ALL_MIGRATIONS.length - 7 });
    expect(await ids()).toEqual(after);
    const { rows } = await db.pool.query(
      `SELECT p.proname, l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
       WHERE p.pronamespace = $1::regnamespace AND p.proname IN ('job_queue_due_head', 'job_queue_has_pending_dependents')`,
      [schema],
    );
    expect(rows).toEqual([{ proname: 'job_queue_has_pending_dependents', lanname: 'sql' }]);
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 1 })).toEqual([{ name: '008_claim_plans' }]);
  });
});

describe('009_parked_group_turns on a schema with parked jobs (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;
  const NOW = new Date('2030-01-01T00:00:00.000Z');
  const before = new Date(NOW.getTime() - 60_000);

  const count = async (where: string) =>
    Number((await db.pool.query(`SELECT count(*) AS n FROM "${schema}".job_queue WHERE ${where}`)).rows[0].n);
  /** The trigger function's definition and the parked-job indexes. */
  const parkingDefinitions = async () => ({
    unpark: (
      await db.pool.query(
        `SELECT pg_get_functiondef(p.oid) AS def FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname = $1 AND p.proname = 'job_queue_unpark'`,
        [schema],
      )
    ).rows[0].def as string,
    indexes: (
      await db.pool.query(
        `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE 'job_queue_parked%' ORDER BY 1`,
        [schema],
      )
    ).rows.map((r) => r.indexname as string),
  });

  it('keeps every job and gives back the parked jobs that 006 left with no turn coming', async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 8 })).toHaveLength(8);
    const at006 = await parkingDefinitions();
    await addClaimedColumns(db.pool, schema);
    await addAddedEventColumn(db.pool, schema);
    await addCascadeHint(db.pool, schema);
    await addRunEventsInRow(db.pool, schema);
    const queue = initJobQueue({ backend: 'postgres', pool: db.pool, schema });
    const backend = backendOf(queue);
    const claim = async (jobTypes?: string[]) =>
      (await backend.claimJobs({ workerId: 'w', batchSize: 10, now: NOW, groupConcurrency: 1, jobTypes })).map(
        (j) => j.id,
      );
    try {
      const job = (jobType: string, group: string, priority: number) => ({
        jobType,
        payload: {},
        group: { id: group },
        priority,
        runAt: before,
      });
      // Group g: a runs, b and c parked; h: h1 runs, h2 (type x) and h3 (type y) parked.
      const [a, b, c, h1, h2, h3] = (await queue.addJobs([
        job('work', 'g', 9),
        job('work', 'g', 5),
        job('work', 'g', 1),
        job('x', 'h', 9),
        job('x', 'h', 5),
        job('y', 'h', 1),
      ])) as [number, number, number, number, number, number];
      expect((await backend.claimJobs({ workerId: 'w', batchSize: 2, now: NOW, groupConcurrency: 1 })).length).toBe(2);
      expect(await claim()).toEqual([]);
      expect(await count('parked')).toBe(4);
      // 006 gives each freed slot one job, b and h2; b is then cancelled: c waits for a slot
      // no job will free, and h3 for a claim of any type.
      // Completed by hand: this version's completions count into a table of a later migration.
      await db.pool.query(
        `UPDATE "${schema}".job_queue SET status = 'completed', completed_at = $1, updated_at = $1 WHERE id = ANY($2::bigint[])`,
        [NOW, [a, h1]],
      );
      await queue.cancelJob(b);
      expect(await claim(['y'])).toEqual([]);
      expect(await count('parked')).toBe(2);
      const jobs = await count('true');

      await dropRunEventsInRow(db.pool, schema);
      await dropClaimedColumns(db.pool, schema);
      await dropAddedEventColumn(db.pool, schema);
      await dropCascadeHint(db.pool, schema);
      expect(await migrate({ databaseUrl: PG_URL, schema })).toEqual(ALL_MIGRATIONS.slice(8).map((name) => ({ name })));
      expect(await count('true')).toBe(jobs);
      expect(await count('parked')).toBe(0);
      expect(await claim(['y'])).toEqual([h3]);
      expect(await claim()).toEqual([c]);
      expect(await count('parked')).toBe(1); // h2, behind h3
      await backend.completeJobs([{ jobId: h3, workerId: 'w' }], NOW);
      expect(await claim()).toEqual([h2]);
    } finally {
      await queue.close();
    }
    // And back (with the migrations after it): the down part restores 006's trigger function and index.
    expect(await parkingDefinitions()).not.toEqual(at006);
    await migrate({ databaseUrl: PG_URL, schema, direction: 'down', count: ALL_MIGRATIONS.length - 8 });
    expect(await parkingDefinitions()).toEqual(at006);
  });
});

describe('010_ascending_list_indexes on a schema with jobs (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;

  /** The definitions of the two listing indexes. */
  const listIndexes = async () =>
    (
      await db.pool.query(
        `SELECT indexdef FROM pg_indexes
         WHERE schemaname = $1 AND indexname IN ('job_queue_status_idx', 'job_queue_job_type_idx') ORDER BY 1`,
        [schema],
      )
    ).rows.map((r) => (r.indexdef as string).replace(` "${schema}".`, ' ').replace(` ${schema}.`, ' '));
  /** The index a listing of `where`, newest first, reads (sequential scans off, as on a large table). */
  async function listingIndex(where: string): Promise<string | undefined> {
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const sql = `SELECT id FROM "${schema}".job_queue WHERE ${where} ORDER BY id DESC LIMIT 10`;
      const plan = JSON.stringify((await client.query(`EXPLAIN (FORMAT JSON) ${sql}`)).rows[0]['QUERY PLAN']);
      await client.query('COMMIT');
      return /"Index Name":"([a-z_]+)"/.exec(plan)?.[1];
    } finally {
      client.release();
    }
  }

  it('keeps every job; listings by status and by type keep their newest-first order through the ascending indexes', async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 9 })).toHaveLength(9);
    const before = await queueBefore013(db.pool, schema);
    const ids = await before.addJobs(['a', 'b', 'a', 'b', 'a'].map((jobType, n) => ({ jobType, payload: { n } })));
    await before.cancelJob(ids[2]!);
    await before.close();
    const at009 = await listIndexes();
    const jobs = async () => (await db.pool.query(`SELECT * FROM "${schema}".job_queue ORDER BY id`)).rows;
    const stored = await jobs();

    expect(await migrate({ databaseUrl: PG_URL, schema, count: 1 })).toEqual([{ name: '010_ascending_list_indexes' }]);
    expect(await jobs()).toEqual(stored);
    expect(await listIndexes()).toEqual([
      'CREATE INDEX job_queue_job_type_idx ON job_queue USING btree (job_type, id)',
      'CREATE INDEX job_queue_status_idx ON job_queue USING btree (status, id)',
    ]);
    expect(await listingIndex(`status = 'pending'`)).toBe('job_queue_status_idx');
    expect(await listingIndex(`job_type = 'a'`)).toBe('job_queue_job_type_idx');
    const queue = await queueBefore013(db.pool, schema);
    try {
      const [a0, b1, , b3, a4] = ids as [number, number, number, number, number];
      expect((await queue.getJobsByStatus('pending')).map((j) => j.id)).toEqual([a4, b3, b1, a0]);
      expect((await queue.getJobs({ jobType: 'a' })).map((j) => j.id)).toEqual([a4, ids[2], a0]);
      expect((await queue.getJobsByStatus('cancelled')).map((j) => j.id)).toEqual([ids[2]]);
      // A job added after the migration comes first.
      const added = await queue.addJob({ jobType: 'a', payload: {} });
      expect((await queue.getJobsByStatus('pending')).map((j) => j.id)).toEqual([added, a4, b3, b1, a0]);
    } finally {
      await queue.close();
    }

    // And back: the down part restores the descending indexes without touching a row.
    const rows = (await jobs()).length;
    await migrate({ databaseUrl: PG_URL, schema, direction: 'down', count: 1 });
    expect(await listIndexes()).toEqual(at009);
    expect((await jobs()).length).toBe(rows);
  });
});

describe('012_overview on a schema with jobs (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;

  it('keeps every job, counts them and their completions; the down part drops the table and the function', async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 11 })).toHaveLength(11);
    const before = await queueBefore013(db.pool, schema);
    const ids = await before.addJobs(['a', 'b', 'a'].map((jobType) => ({ jobType, payload: {} })));
    await before.cancelJob(ids[1]!);
    await before.close();

    expect(await migrate({ databaseUrl: PG_URL, schema })).toEqual(ALL_MIGRATIONS.slice(11).map((name) => ({ name })));
    const queue = initJobQueue({ backend: 'postgres', pool: db.pool, schema });
    try {
      const counts = await queue.getJobCounts();
      expect([counts.byStatus.pending, counts.byStatus.cancelled]).toEqual([2, 1]);
      const [job] = await backendOf(queue).claimJobs({ workerId: 'w', batchSize: 1, now: new Date() });
      await backendOf(queue).completeJobs([{ jobId: job!.id, workerId: 'w' }], new Date());
      expect((await queue.getThroughput({ minutes: 1 }))[0]!.completed).toBe(1);
    } finally {
      await queue.close();
    }

    await migrate({ databaseUrl: PG_URL, schema, direction: 'down', count: ALL_MIGRATIONS.length - 11 });
    const { rows } = await db.pool.query(
      `SELECT (SELECT count(*)::int FROM "${schema}".job_queue) AS jobs,
         to_regclass($1) IS NULL AS no_table,
         NOT EXISTS (SELECT 1 FROM pg_proc WHERE pronamespace = $2::regnamespace AND proname = 'job_queue_count_newest') AS no_function`,
      [`"${schema}".job_throughput`, schema],
    );
    expect(rows).toEqual([{ jobs: 3, no_table: true, no_function: true }]);
  });
});

describe('011_trace_context on a schema with jobs (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;

  it('queue-cli migrate keeps every job; old jobs run unlinked, new ones link to their add; down drops only the column', async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 10 })).toHaveLength(10);
    const before = await queueBefore013(db.pool, schema);
    const ids = await before.addJobs([
      { jobType: 'old', payload: { n: 1 } },
      { jobType: 'old', payload: { n: 2 }, priority: 5 },
    ]);
    await before.cancelJob(ids[0]!);
    await before.close();
    const jobs = async () => (await db.pool.query(`SELECT * FROM "${schema}".job_queue ORDER BY id`)).rows;
    const stored = await jobs();

    const run = await runCli(['migrate', '-s', schema], ROOT, { PG_QUEUE_DATABASE: PG_URL });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Applied 011_trace_context');
    expect(await jobs()).toEqual(
      stored.map((row) => ({
        ...row,
        trace_context: null,
        added_event_id: null,
        processing_event_id: null,
        processing_event_at: null,
        completed_event_id: null,
      })),
    );

    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const queue = initJobQueue({ backend: 'postgres', pool: db.pool, schema, telemetry: { tracerProvider } });
    try {
      const added = await queue.addJob({ jobType: 'new', payload: {} });
      const handled: number[] = [];
      const handler = async (payload: { n?: number }) => void handled.push(payload.n ?? 0);
      const processor = queue.createProcessor({ old: handler, new: handler });
      expect(await processor.start()).toBe(2);
      expect(handled.sort()).toEqual([0, 2]);
      expect(await queue.getJob(added)).toMatchObject({ status: 'completed' });
      const runs = exporter.getFinishedSpans().filter((s) => s.name.startsWith('process '));
      const add = exporter.getFinishedSpans().find((s) => s.name === 'add new')!;
      expect(Object.fromEntries(runs.map((s) => [s.name, s.links.map((l) => l.context.spanId)]))).toEqual({
        'process old': [],
        'process new': [add.spanContext().spanId],
      });
    } finally {
      await queue.close();
      await tracerProvider.shutdown();
    }

    // And back (with the migrations after it): only the column goes.
    const count = (await jobs()).length;
    await migrate({ databaseUrl: PG_URL, schema, direction: 'down', count: ALL_MIGRATIONS.length - 10 });
    const after = await jobs();
    expect(after).toHaveLength(count);
    expect(after.every((row) => !('trace_context' in row))).toBe(true);
  });
});

describe('013_added_event_in_row on a schema with jobs (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;
  const eventsOf = async (jobId: number) =>
    (
      await db.pool.query(`SELECT id::int, event_type FROM "${schema}".job_events WHERE job_id = $1 ORDER BY id`, [
        jobId,
      ])
    ).rows as { id: number; event_type: string }[];

  it('keeps every job and event; new plain adds keep their event in the row; the down part moves it back, id and all', async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 12 })).toHaveLength(12);
    const before = await queueBefore013(db.pool, schema);
    const old = await before.addJob({ jobType: 'old', payload: {} });
    await before.close();
    const oldEvents = await eventsOf(old);
    expect(oldEvents.map((e) => e.event_type)).toEqual(['added']);

    expect(await migrate({ databaseUrl: PG_URL, schema, count: 2 })).toEqual([
      { name: '013_added_event_in_row' },
      { name: '014_added_events_floor' },
    ]);
    await addRunEventsInRow(db.pool, schema);
    const queue = initJobQueue({ backend: 'postgres', pool: db.pool, schema });
    let fresh: number;
    let history: { id: number; eventType: string }[];
    try {
      expect((await queue.getJobEvents(old)).map((e) => [e.id, e.eventType])).toEqual([[oldEvents[0]!.id, 'added']]);
      fresh = await queue.addJob({ jobType: 'new', payload: {} });
      await queue.editJob(fresh, { priority: 3 });
      expect((await eventsOf(fresh)).map((e) => e.event_type)).toEqual(['edited']);
      history = (await queue.getJobEvents(fresh)).map((e) => ({ id: e.id, eventType: e.eventType }));
      expect(history.map((e) => e.eventType)).toEqual(['added', 'edited']);
      expect(history[0]!.id).toBeGreaterThan(oldEvents[0]!.id);
    } finally {
      await queue.close();
      await dropRunEventsInRow(db.pool, schema);
    }

    await migrate({ databaseUrl: PG_URL, schema, direction: 'down', count: 2 });
    expect((await eventsOf(fresh)).map((e) => ({ id: e.id, eventType: e.event_type }))).toEqual(history);
    expect(await eventsOf(old)).toEqual(oldEvents);
  });
});

describe('014_added_events_floor on a schema with jobs (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;
  const DAY = 86_400_000;
  const NOW = new Date('2030-01-01T00:00:00.000Z');
  const keptInRows = async () =>
    (
      await db.pool.query(`SELECT id::int FROM "${schema}".job_queue WHERE added_event_id IS NOT NULL ORDER BY id`)
    ).rows.map((r) => r.id as number);
  const addedEvents = async () =>
    (
      await db.pool.query(`SELECT job_id::int FROM "${schema}".job_events WHERE event_type = 'added' ORDER BY job_id`)
    ).rows.map((r) => r.job_id as number);

  it('removes old in-row events by the floor after the upgrade, and the down part clears them in their rows', async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 13 })).toHaveLength(13);
    // Jobs as 013 stored them: two added 10 days ago, one added now, each keeping its event.
    const insert = (at: Date) =>
      db.pool.query(
        `INSERT INTO "${schema}".job_queue (job_type, payload, run_at, created_at, updated_at, added_event_id)
         VALUES ('a', '{}', $1, $1, $1, nextval('"${schema}".job_events_id_seq'::regclass)) RETURNING id::int`,
        [at],
      );
    const old = [
      (await insert(new Date(NOW.getTime() - 10 * DAY))).rows[0].id,
      (await insert(new Date(NOW.getTime() - 10 * DAY))).rows[0].id,
    ];
    const recent = (await insert(NOW)).rows[0].id as number;

    expect(await migrate({ databaseUrl: PG_URL, schema, count: 1 })).toEqual([{ name: '014_added_events_floor' }]);
    const indexes = async () =>
      (await db.pool.query(`SELECT indexname FROM pg_indexes WHERE schemaname = $1`, [schema])).rows.map(
        (r) => r.indexname as string,
      );
    expect(await indexes()).not.toContain('job_queue_added_event_idx');
    await addRunEventsInRow(db.pool, schema);
    const queue = initJobQueue({ backend: 'postgres', pool: db.pool, schema, clock: { now: () => NOW } });
    try {
      for (const id of [...old, recent])
        expect((await queue.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added']);
      expect(await queue.cleanupOldJobEvents(7, 1)).toBe(2);
      for (const id of old) expect(await queue.getJobEvents(id)).toEqual([]);
      expect((await queue.getJobEvents(recent)).map((e) => e.eventType)).toEqual(['added']);
      // The rows themselves are untouched: the floor alone hides the removed events.
      expect(await keptInRows()).toEqual([...old, recent]);
    } finally {
      await queue.close();
      await dropRunEventsInRow(db.pool, schema);
    }

    // Down: the events below the floor are cleared in their rows, so 013's down part brings
    // back the live one only, and 013's index holds only it.
    await migrate({ databaseUrl: PG_URL, schema, direction: 'down', count: 1 });
    expect(await keptInRows()).toEqual([recent]);
    expect(await indexes()).toContain('job_queue_added_event_idx');
    await migrate({ databaseUrl: PG_URL, schema, direction: 'down', count: 1 });
    expect(await addedEvents()).toEqual([recent]);
  });
});

describe('015_unpark_wakes on a schema with jobs (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;
  const unparkWakes = async () =>
    (
      await db.pool.query(`SELECT pg_get_functiondef($1::regprocedure) AS def`, [`"${schema}".job_queue_unpark()`])
    ).rows[0].def.includes('pg_notify') as boolean;

  it("keeps every job; the trigger's new body wakes processors, and the down part puts 009's back", async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 14 })).toHaveLength(14);
    await db.pool.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, run_at, created_at, updated_at, group_id, parked, parked_reason)
       VALUES ('a', '{}', now(), now(), now(), 'g', true, 'group_full')`,
    );
    expect(await unparkWakes()).toBe(false);
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 1 })).toEqual([{ name: '015_unpark_wakes' }]);
    expect(await unparkWakes()).toBe(true);
    const { rows } = await db.pool.query(`SELECT parked, parked_reason FROM "${schema}".job_queue`);
    expect(rows).toEqual([{ parked: true, parked_reason: 'group_full' }]);
    await migrate({ databaseUrl: PG_URL, schema, direction: 'down', count: 1 });
    expect(await unparkWakes()).toBe(false);
  });
});

describe('016_lane_plans_kept on a schema with jobs (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;
  const LANE_FUNCTIONS = [
    'job_queue_due_head(text[], integer)',
    'job_queue_became_due(timestamptz)',
    'job_queue_has_pending_dependents(bigint[], text[])',
  ];
  /** Each function's plan_cache_mode setting, or null when it has none. */
  const planModes = async () =>
    Promise.all(
      LANE_FUNCTIONS.map(async (fn) => {
        const { rows } = await db.pool.query<{ mode: string | null }>(
          `SELECT (SELECT split_part(c, '=', 2) FROM unnest(proconfig) c WHERE c LIKE 'plan_cache_mode=%') AS mode
           FROM pg_proc WHERE oid = $1::regprocedure`,
          [`"${schema}".${fn}`],
        );
        return rows[0]!.mode;
      }),
    );

  it('keeps every job and the functions; they keep their generic plans, and the down part lets them plan per call again', async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 15 })).toHaveLength(15);
    await db.pool.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, run_at, created_at, updated_at)
       VALUES ('a', '{"n":1}', now(), now(), now())`,
    );
    expect(await planModes()).toEqual([null, null, null]);
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 1 })).toEqual([{ name: '016_lane_plans_kept' }]);
    expect(await planModes()).toEqual(['force_generic_plan', 'force_generic_plan', 'force_generic_plan']);
    const { rows } = await db.pool.query(`SELECT job_type, payload, status FROM "${schema}".job_queue`);
    expect(rows).toEqual([{ job_type: 'a', payload: { n: 1 }, status: 'pending' }]);
    // The other settings the functions pin stay.
    const { rows: pinned } = await db.pool.query<{ proconfig: string[] }>(
      `SELECT proconfig FROM pg_proc WHERE oid = $1::regprocedure`,
      [`"${schema}".job_queue_due_head(text[], integer)`],
    );
    expect(pinned[0]!.proconfig).toEqual(expect.arrayContaining(['enable_seqscan=off', 'enable_bitmapscan=off']));
    await migrate({ databaseUrl: PG_URL, schema, direction: 'down', count: 1 });
    expect(await planModes()).toEqual([null, null, null]);
  });
});

describe('017_cascade_hint on a schema with jobs (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;
  const live = async (ids: number[]) => {
    const { rows } = await db.pool.query<{ live: boolean }>(
      `SELECT "${schema}".job_queue_has_live_dependents($1::bigint[]) AS live`,
      [ids],
    );
    return rows[0]!.live;
  };

  it('keeps every job; the hint says whether a cascade would cancel a pending or waiting job, and the down part drops it', async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 16 })).toHaveLength(16);
    const insert = async (columns: string, values: string) => {
      const { rows } = await db.pool.query<{ id: string }>(
        `INSERT INTO "${schema}".job_queue (job_type, payload, run_at, created_at, updated_at, ${columns})
         VALUES ('a', '{}', now(), now(), now(), ${values}) RETURNING id`,
      );
      return Number(rows[0]!.id);
    };
    const parent = await insert('tags', `'{}'`);
    const barrier = await insert('tags', `'{x,y}'`);
    const lone = await insert('tags', `'{z}'`);
    const byId = await insert('depends_on_job_ids', `ARRAY[${parent}]::bigint[]`);
    const byTags = await insert('depends_on_tags', `'{x,y}'`);
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 1 })).toEqual([{ name: '017_cascade_hint' }]);
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM "${schema}".job_queue`);
    expect(rows).toEqual([{ n: 5 }]);

    expect(await live([parent])).toBe(true);
    expect(await live([barrier])).toBe(true);
    expect(await live([lone])).toBe(false);
    expect(await live([byId, byTags])).toBe(false);
    // A waiting dependent still counts; an ended one does not.
    await db.pool.query(`UPDATE "${schema}".job_queue SET status = 'waiting' WHERE id = $1`, [byId]);
    expect(await live([parent])).toBe(true);
    await db.pool.query(`UPDATE "${schema}".job_queue SET status = 'cancelled' WHERE id = ANY($1::bigint[])`, [
      [byId, byTags],
    ]);
    expect(await live([parent])).toBe(false);
    expect(await live([barrier])).toBe(false);

    await migrate({ databaseUrl: PG_URL, schema, direction: 'down', count: 1 });
    const { rows: fns } = await db.pool.query(
      `SELECT proname FROM pg_proc WHERE pronamespace = $1::regnamespace AND proname = 'job_queue_has_live_dependents'`,
      [schema],
    );
    expect(fns).toEqual([]);
  });
});

describe('018_run_events_in_row on a schema with jobs (postgres)', () => {
  const db = useUpgradeSchema();
  const { schema } = db;
  const NOW = new Date('2030-01-01T00:00:00.000Z');
  const DAY = 86_400_000;
  const stored = async () =>
    (await db.pool.query(`SELECT id::int, job_id::int, event_type, created_at FROM "${schema}".job_events ORDER BY id`))
      .rows as { id: number; job_id: number; event_type: string; created_at: Date }[];
  const finishedIndex = async () =>
    (
      await db.pool.query(
        `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'job_queue_finished_idx'`,
        [schema],
      )
    ).rows[0].indexdef as string;

  it('keeps every job and event; claims and completions then keep theirs in the row; the down part writes them out, ids and all', async () => {
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 17 })).toHaveLength(17);
    const at017 = await finishedIndex();
    // A job as 017 stored it: claimed and completed, each event a row of job_events.
    const { rows } = await db.pool.query(
      `INSERT INTO "${schema}".job_queue (job_type, payload, status, run_at, created_at, updated_at, started_at, completed_at, attempts)
       VALUES ('a', '{}', 'completed', $1, $1, $1, $1, $1, 1) RETURNING id::int`,
      [new Date(NOW.getTime() - 10 * DAY)],
    );
    const old = rows[0].id as number;
    await db.pool.query(
      `INSERT INTO "${schema}".job_events (job_id, event_type, created_at)
       SELECT $1, e, $2 FROM unnest(ARRAY['added', 'processing', 'completed']) AS e`,
      [old, new Date(NOW.getTime() - 10 * DAY)],
    );
    const before = await stored();

    expect(await migrate({ databaseUrl: PG_URL, schema, count: 1 })).toEqual([{ name: '018_run_events_in_row' }]);
    expect(await stored()).toEqual(before);
    expect(await finishedIndex()).toContain('(updated_at, id)');
    const queue = initJobQueue({ backend: 'postgres', pool: db.pool, schema, clock: { now: () => NOW } });
    let recent: number;
    let cleaned: number;
    let recentHistory: { id: number; eventType: string; createdAt: Date }[];
    try {
      expect((await queue.getJobEvents(old)).map((e) => e.eventType)).toEqual(['added', 'processing', 'completed']);
      const backend = backendOf(queue);
      [cleaned, recent] = (await queue.addJobs([
        { jobType: 'a', payload: {}, runAt: new Date(NOW.getTime() - 10 * DAY) },
        { jobType: 'a', payload: {}, runAt: new Date(NOW.getTime() - 10 * DAY) },
      ])) as [number, number];
      expect(
        (await backend.claimJobs({ workerId: 'w', batchSize: 2, now: new Date(NOW.getTime() - 9 * DAY) })).map(
          (j) => j.id,
        ),
      ).toEqual([cleaned, recent]);
      await backend.completeJobs([{ jobId: cleaned, workerId: 'w' }], new Date(NOW.getTime() - 9 * DAY));
      await backend.completeJobs([{ jobId: recent, workerId: 'w' }], NOW);
      expect(await stored()).toEqual(before);
      recentHistory = (await queue.getJobEvents(recent)).map((e) => ({
        id: e.id,
        eventType: e.eventType,
        createdAt: e.createdAt,
      }));
      expect(recentHistory.map((e) => e.eventType)).toEqual(['added', 'processing', 'completed']);
      // The cleanup removes the old job's rows and the two events the job completed 9 days ago
      // kept in its row (its `added` event, kept there too, is from now).
      expect(await queue.cleanupOldJobEvents(7, 10)).toBe(3 + 2);
      expect(await queue.getJobEvents(old)).toEqual([]);
      expect((await queue.getJobEvents(cleaned)).map((e) => e.eventType)).toEqual(['added']);
    } finally {
      await queue.close();
    }

    // Down: the kept events still shown become rows of job_events with their ids and times;
    // those below the floor stay removed.
    await migrate({ databaseUrl: PG_URL, schema, direction: 'down', count: 1 });
    expect(await finishedIndex()).toEqual(at017);
    const written = (await stored()).filter((e) => e.job_id === recent);
    expect(written.map((e) => ({ id: e.id, eventType: e.event_type, createdAt: e.created_at }))).toEqual(
      recentHistory.filter((e) => e.eventType !== 'added'),
    );
    expect((await stored()).filter((e) => e.job_id === cleaned)).toEqual([]);
  });
});

describe('migrate() from the package entry point (postgres)', () => {
  const schemas: string[] = [];
  let pool: pg.Pool;

  beforeAll(() => {
    pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
  });
  afterAll(async () => {
    for (const s of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
    await pool.end();
  });

  it("migrates on a caller's pool, leaves it open and its connection on its own search_path", async () => {
    const schema = uniqueName('qpg_mig');
    schemas.push(schema);
    const before = (await pool.query('SHOW search_path')).rows[0].search_path;
    const lines: string[] = [];
    expect(await migrate({ pool, schema, log: (line) => lines.push(line) })).toEqual(
      ALL_MIGRATIONS.map((name) => ({ name })),
    );
    expect(lines).toEqual(ALL_MIGRATIONS.map((name) => `Applied ${name}`));
    // max: 1, so this is the very connection migrate used, back in the pool.
    expect((await pool.query('SHOW search_path')).rows[0].search_path).toBe(before);
    const queue = initJobQueue({ backend: 'postgres', pool, schema });
    try {
      expect(await queue.getJob(await queue.addJob({ jobType: 'a', payload: {} }))).toMatchObject({
        status: 'pending',
      });
    } finally {
      await queue.close();
    }
    expect(await migrate({ pool, schema })).toEqual([]);
  });

  it.each<[string, unknown, string[]]>([
    ['no database', { schema: 'x' }, ['`databaseUrl`', 'undefined']],
    [
      'both databaseUrl and pool',
      { databaseUrl: PG_URL, pool: {} },
      ['one of `databaseUrl`, `pool` or `pglite`, not `databaseUrl` and `pool`'],
    ],
    ['both pool and pglite', { pool: {}, pglite: {} }, ['not `pool` and `pglite`']],
    ['an empty databaseUrl', { databaseUrl: '' }, ['`databaseUrl`', 'a PostgreSQL connection URL', 'empty']],
    ['a pool without connect()', { pool: { query: () => undefined } }, ['`pool`', 'connect()']],
    ['a schema that is not an identifier', { databaseUrl: PG_URL, schema: 'bad-name' }, ['`schema`', '"bad-name"']],
    ['an unknown direction', { databaseUrl: PG_URL, direction: 'sideways' }, ['`direction`', '"sideways"']],
    ['a count of 0', { databaseUrl: PG_URL, count: 0 }, ['`count`', 'a positive integer']],
    ['a misspelt option', { databaseUrl: PG_URL, shema: 'x' }, ['`shema`', 'Did you mean `schema`?']],
    ['options that are not an object', 'postgres://x', ['options of migrate()', 'an object']],
  ])('refuses %s with a ConfigError, before connecting', async (_name, options, fragments) => {
    const error = await migrate(options as MigrateOptions).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    for (const fragment of fragments) expect((error as Error).message).toContain(fragment);
  });
});
