/**
 * Schemas: each queue works only in its configured schema; the schema name is validated when
 * the queue is created, before any SQL is built from it.
 */
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/index.js';
import { ConfigError } from '../../src/errors.js';
import { backendOf, initJobQueue } from '../../src/queue.js';
import { PG_URL } from '../helpers/backends.js';
import { usePostgres } from './support.js';

describe('schemas (postgres)', () => {
  const ctx = usePostgres({ schemas: 1 });

  it('two queues on two schemas never see each other’s jobs', async () => {
    const a = ctx.queue();
    const b = ctx.queue({ schema: ctx.extraSchemas[0]! });

    const aId = await a.addJob({ jobType: 'email', payload: { from: 'a' }, tags: ['t'], idempotencyKey: 'same-key' });
    const bId = await b.addJob({ jobType: 'email', payload: { from: 'b' }, tags: ['t'], idempotencyKey: 'same-key' });
    // Ids and idempotency keys are per schema.
    expect([aId, bId]).toEqual([1, 1]);
    expect((await a.getJob(aId))?.payload).toEqual({ from: 'a' });
    expect((await b.getJob(bId))?.payload).toEqual({ from: 'b' });
    await b.addJob({ jobType: 'email', payload: { from: 'b', n: 2 } });
    expect(await a.getAllJobs()).toHaveLength(1);
    expect(await b.getAllJobs()).toHaveLength(2);

    // Bulk operations and claims stay in their schema.
    expect(await a.cancelAllUpcomingJobs()).toBe(1);
    expect((await b.getJobsByStatus('pending')).length).toBe(2);
    const claimed = await backendOf(b).claimJobs({ workerId: 'w', batchSize: 10, now: new Date() });
    expect(claimed.map((j) => j.payload)).toEqual([{ from: 'b' }, { from: 'b', n: 2 }]);
    expect((await a.getJob(aId))?.status).toBe('cancelled');
    expect((await a.getJobEvents(aId)).map((e) => e.eventType)).toEqual(['added', 'cancelled']);
  });

  it.each([
    ['with a hyphen', 'bad-name'],
    ['with a quote', 'x"; DROP TABLE job_queue; --'],
    ['starting with a digit', '1queue'],
    ['empty', ''],
    ['longer than 63 characters', 'a'.repeat(64)],
    ['not a string', 42],
  ])('rejects a schema name %s at initJobQueue with a ConfigError', (_label, schema) => {
    let error: unknown;
    try {
      initJobQueue({ backend: 'postgres', pool: ctx.sql, schema: schema as string });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('`schema`');
  });

  it('accepts mixed case and underscores, quoting the name exactly', async () => {
    const schema = `Q_${ctx.schema}`.slice(0, 63);
    await migrate({ databaseUrl: PG_URL, schema });
    try {
      const q = ctx.queue({ schema });
      await q.addJob({ jobType: 'x', payload: {} });
      await q.addJob({ jobType: 'y', payload: {}, dependsOn: { tags: ['t'] } });
      expect(
        (await backendOf(q).claimJobs({ workerId: 'w', batchSize: 5, now: new Date() })).map((j) => j.jobType),
      ).toEqual(['x', 'y']);
      const { rows } = await ctx.sql.query(`SELECT job_type FROM "${schema}".job_queue ORDER BY id`);
      expect(rows).toEqual([{ job_type: 'x' }, { job_type: 'y' }]);
    } finally {
      await ctx.sql.query(`DROP SCHEMA "${schema}" CASCADE`);
    }
  });
});
