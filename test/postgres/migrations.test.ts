/**
 * `queue-cli migrate` (SPEC §4.12), run as a child process through tsx against a fresh database,
 * and the library's migrate() used by the test harness.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/backends/postgres/migrate.js';
import { initJobQueue } from '../../src/queue.js';
import { PG_URL, uniqueName } from '../helpers/backends.js';

const CLI = fileURLToPath(new URL('../../src/cli/index.ts', import.meta.url));
const ALL_MIGRATIONS = ['001_initial', '002_cron_and_waits'];
const ALL_TABLES = ['cron_schedules', 'job_events', 'job_queue', 'queuedev_migrations', 'waitpoint_tokens'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs queue-cli with exactly `env` (plus PATH), never the test process's PG_QUEUE_DATABASE. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function urlOf(database: string): string {
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

describe('queue-cli migrate (postgres)', () => {
  const database = uniqueName('qd_cli_db');
  const dbUrl = urlOf(database);
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

    const down = await cli(['migrate', 'down'], { PG_QUEUE_DATABASE: dbUrl });
    expect(down.code, down.stderr).toBe(0);
    expect(await tablesIn('public')).toEqual(['job_events', 'job_queue', 'queuedev_migrations']);
    expect(await history('public')).toEqual(['001_initial']);

    const downAgain = await cli(['migrate', 'down'], { PG_QUEUE_DATABASE: dbUrl });
    expect(downAgain.code, downAgain.stderr).toBe(0);
    expect(await tablesIn('public')).toEqual(['queuedev_migrations']);
    expect(await history('public')).toEqual([]);
  });

  it('passes other options through to node-pg-migrate (--dry-run changes nothing)', async () => {
    const dry = await cli(['migrate', '-s', 'jobs_dry', '--dry-run'], { PG_QUEUE_DATABASE: dbUrl });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('dry run');
    expect(await tablesIn('jobs_dry')).toEqual(['queuedev_migrations']);
    expect(await history('jobs_dry')).toEqual([]);
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
});

describe('queue-cli commands', () => {
  const COMMANDS = ['migrate', 'init', 'install-skills', 'install-rules', 'install-mcp', 'mcp'];

  it('prints the usage for an unknown or missing command (exit 1) and on --help (exit 0)', async () => {
    const [unknown, none, help, notYet] = await Promise.all([cli(['frobnicate']), cli([]), cli(['--help']), cli(['install-mcp'])]);
    for (const run of [unknown, none]) {
      expect(run.code).toBe(1);
      for (const command of COMMANDS) expect(run.stderr).toContain(command);
    }
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: queue-cli <command>');
    expect(notYet.code).toBe(1);
    expect(notYet.stderr).toContain('install-mcp: not available yet in this version');
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
    const runs = await Promise.all([...schemas, ...schemas, schemas[0]!].map((schema) => migrate({ databaseUrl: PG_URL, schema })));
    // Each schema migrated exactly once; the other calls found nothing to do.
    expect(runs.filter((r) => r.length === ALL_MIGRATIONS.length)).toHaveLength(2);
    expect(runs.filter((r) => r.length === 0)).toHaveLength(3);
    for (const s of schemas) {
      const { rows } = await pool.query(`SELECT name FROM "${s}".queuedev_migrations ORDER BY id`);
      expect(rows.map((r) => r.name)).toEqual(ALL_MIGRATIONS);
    }
  });

  it('applies 002_cron_and_waits on top of a released 001 schema: jobs kept, tables and indexes created', async () => {
    const schema = uniqueName('qpg_mig');
    schemas.push(schema);
    expect(await migrate({ databaseUrl: PG_URL, schema, count: 1 })).toEqual([{ name: '001_initial' }]);
    const before = initJobQueue({ backend: 'postgres', pool, schema });
    const jobId = await before.addJob({ jobType: 'old', payload: { kept: true } });
    await before.close();

    expect(await migrate({ databaseUrl: PG_URL, schema })).toEqual([{ name: '002_cron_and_waits' }]);
    const { rows: indexes } = await pool.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename IN ('cron_schedules', 'waitpoint_tokens', 'job_queue')`,
      [schema],
    );
    const def = (name: string) => indexes.find((r) => r.indexname === name)?.indexdef as string | undefined;
    expect(def('cron_schedules_schedule_name_key')).toContain('UNIQUE INDEX');
    expect(def('cron_schedules_due_idx')).toMatch(/\(next_run_at, id\) WHERE \(status = 'active'::text\)/);
    expect(def('waitpoint_tokens_timeout_idx')).toMatch(/\(timeout_at\) WHERE \(\(status = 'waiting'::text\) AND \(timeout_at IS NOT NULL\)\)/);
    expect(def('waitpoint_tokens_job_id_idx')).toContain('(job_id)');
    expect(def('job_queue_wait_token_idx')).toMatch(/\(wait_token_id\) WHERE/);

    const after = initJobQueue({ backend: 'postgres', pool, schema });
    try {
      expect(await after.getJob(jobId)).toMatchObject({ jobType: 'old', payload: { kept: true }, status: 'pending' });
      const cronId = await after.addCronJob({ scheduleName: 'upgrade', cronExpression: '* * * * *', jobType: 'tick', payload: {} });
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
