/**
 * A queue without `schema` follows the connection's search_path (SPEC §4.12): migrate with
 * `--schema x`, then a connection that sets `search_path=x` finds the tables there, whether the
 * path comes from the connection string, a pool's startup options or a SET on connect.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { migrate } from '../../src/index.js';
import { notifyChannel } from '../../src/backends/postgres/queries/names.js';
import { NotMigratedError } from '../../src/errors.js';
import { backendOf } from '../../src/queue.js';
import { PG_URL, uniqueName } from '../helpers/backends.js';
import { usePostgres } from './support.js';
import { waitFor } from '../helpers/wait.js';

/** PG_URL with `?options=-c search_path=<schema>`, the form a deployment's connection string uses. */
function urlWithSearchPath(schema: string): string {
  return `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

describe('a queue without `schema` follows the search_path (postgres)', () => {
  const ctx = usePostgres({ schemas: 1 });
  const pools: pg.Pool[] = [];
  const clients: pg.Client[] = [];

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.end()));
    await Promise.all(pools.splice(0).map((p) => p.end()));
  });

  function ownPool(config: pg.PoolConfig): pg.Pool {
    const pool = new pg.Pool(config);
    pools.push(pool);
    return pool;
  }

  it('uses the schema a connection string sets with search_path for jobs, events, claims and cron', async () => {
    const q = ctx.queue({ schema: undefined, databaseConfig: { connectionString: urlWithSearchPath(ctx.schema) } });
    const id = await q.addJob({ jobType: 'email', payload: { to: 'a' } });
    await q.addCronJob({ scheduleName: 'nightly', cronExpression: '0 3 * * *', jobType: 'report', payload: {} });

    const { rows } = await ctx.sql.query(`SELECT id::int, job_type FROM ${ctx.table('job_queue')}`);
    expect(rows).toEqual([{ id, job_type: 'email' }]);
    const crons = await ctx.sql.query(`SELECT schedule_name FROM ${ctx.table('cron_schedules')}`);
    expect(crons.rows).toEqual([{ schedule_name: 'nightly' }]);
    expect((await q.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added']);
    const claimed = await backendOf(q).claimJobs({ workerId: 'w', batchSize: 5, now: new Date() });
    expect(claimed.map((j) => j.id)).toEqual([id]);
  });

  it('uses the search_path of a caller pool, set as a startup option or by SET on connect, one schema per pool', async () => {
    const other = ctx.extraSchemas[0]!;
    const byOption = ownPool({ connectionString: PG_URL, options: `-c search_path=${ctx.schema}` });
    const bySet = ownPool({ connectionString: PG_URL });
    bySet.on('connect', (client) => {
      void client.query(`SET search_path TO "${other}"`);
    });
    const a = ctx.queue({ schema: undefined, pool: byOption });
    const b = ctx.queue({ schema: undefined, pool: bySet });

    const aId = await a.addJob({ jobType: 'a', payload: {}, idempotencyKey: 'k' });
    const bId = await b.addJob({ jobType: 'b', payload: {}, idempotencyKey: 'k' });
    expect([aId, bId]).toEqual([1, 1]); // ids and keys are per schema
    expect((await a.getAllJobs()).map((j) => j.jobType)).toEqual(['a']);
    expect((await b.getAllJobs()).map((j) => j.jobType)).toEqual(['b']);
    const inOther = await ctx.sql.query(`SELECT job_type FROM "${other}".job_queue`);
    expect(inOther.rows).toEqual([{ job_type: 'b' }]);
  });

  it('announces new jobs on its own schema’s channel, which its processors listen on', async () => {
    const other = ctx.extraSchemas[0]!;
    const a = ctx.queue({ schema: undefined, databaseConfig: { connectionString: urlWithSearchPath(ctx.schema) } });
    const b = ctx.queue({ schema: undefined, databaseConfig: { connectionString: urlWithSearchPath(other) } });

    const listener = new pg.Client({ connectionString: PG_URL });
    clients.push(listener);
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (m) => heard.push(m.channel));
    for (const channel of [notifyChannel(ctx.schema), notifyChannel(other), notifyChannel('public')]) {
      await listener.query(`LISTEN "${channel}"`);
    }
    let woken = 0;
    const unsubscribe = await backendOf(a).subscribeJobAvailable(() => woken++);
    const subscribed = woken; // the call once subscribed
    try {
      await a.addJob({ jobType: 'a', payload: {} });
      await b.addJob({ jobType: 'b', payload: {} });
      await waitFor(() => heard.length >= 2 && woken > subscribed, { what: 'both notifications and the wake-up' });
      // One session receives notifications in commit order.
      expect(heard).toEqual([notifyChannel(ctx.schema), notifyChannel(other)]);
    } finally {
      await unsubscribe();
    }
  });

  it('fails with a NotMigratedError naming the search_path and the schema to migrate while no tables are on it, and works once migrated', async () => {
    const schema = uniqueName('qpg');
    const q = ctx.queue({ schema: undefined, databaseConfig: { connectionString: urlWithSearchPath(schema) } });
    try {
      const error = await q.addJob({ jobType: 'x', payload: {} }).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(NotMigratedError);
      expect(error).toMatchObject({ code: 'SCHEMA_NOT_MIGRATED', schema });
      expect((error as Error).message).toContain(`search_path (\`${schema}\`)`);
      expect((error as Error).message).toContain(`npx queue-cli migrate --schema ${schema}`);

      await migrate({ databaseUrl: PG_URL, schema });
      const id = await q.addJob({ jobType: 'x', payload: {} });
      expect((await ctx.sql.query(`SELECT id::int FROM "${schema}".job_queue`)).rows).toEqual([{ id }]);
    } finally {
      await ctx.sql.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  });
});
