/**
 * The `db` option of addJob / addJobs (SPEC §4.1 rule 1): the insert and its `added` event run on
 * the caller's client, inside the caller's transaction, and the library never releases it.
 */
import type { PoolClient } from 'pg';
import { describe, expect, it } from 'vitest';
import { backendOf, batchDepRef } from '../../src/queue.js';
import type { Queryable } from '../../src/types.js';
import { usePostgres } from './support.js';

describe('addJob / addJobs with `db` (postgres)', () => {
  const ctx = usePostgres();

  /** A checked-out client whose release() is recorded instead of releasing. */
  async function trackedClient(): Promise<{ client: PoolClient; releases: () => number; done: () => void }> {
    const client = await ctx.sql.connect();
    const release = client.release.bind(client);
    let count = 0;
    client.release = () => {
      count++;
    };
    return { client, releases: () => count, done: () => release() };
  }

  async function countRows(): Promise<{ jobs: number; events: number }> {
    const { rows } = await ctx.sql.query(
      `SELECT (SELECT count(*)::int FROM ${ctx.table('job_queue')}) AS jobs, (SELECT count(*)::int FROM ${ctx.table('job_events')}) AS events`,
    );
    return rows[0];
  }

  it('ROLLBACK discards the job and its added event; the client is not released', async () => {
    const queue = ctx.queue();
    const { client, releases, done } = await trackedClient();
    try {
      await client.query('BEGIN');
      const id = await queue.addJob({ jobType: 'email', payload: { to: 'a' } }, { db: client });
      const ids = await queue.addJobs(
        [
          { jobType: 'a', payload: 1 },
          { jobType: 'b', payload: 2 },
        ],
        { db: client },
      );

      // Inside the transaction: visible on the caller's client only (an `added` event is a row
      // of job_events, or kept in its job's row since migration 013).
      const inside = await client.query(
        `SELECT (SELECT count(*)::int FROM ${ctx.table('job_events')} WHERE event_type = 'added')
           + (SELECT count(*)::int FROM ${ctx.table('job_queue')} WHERE added_event_id IS NOT NULL) AS n`,
      );
      expect(inside.rows[0].n).toBe(3);
      expect(await queue.getJob(id)).toBeNull();

      await client.query('ROLLBACK');
      expect(releases()).toBe(0);
      expect(await countRows()).toEqual({ jobs: 0, events: 0 });
      for (const jobId of [id, ...ids]) expect(await queue.getJob(jobId)).toBeNull();
      // Still ours and usable.
      expect((await client.query('SELECT 1 AS one')).rows[0].one).toBe(1);
    } finally {
      done();
    }
  });

  it('COMMIT keeps the job and its added event', async () => {
    const queue = ctx.queue();
    const { client, releases, done } = await trackedClient();
    try {
      await client.query('BEGIN');
      await client.query(`CREATE TEMP TABLE orders (id int) ON COMMIT DROP`);
      await client.query(`INSERT INTO orders VALUES (1)`);
      const id = await queue.addJob(
        { jobType: 'email', payload: { order: 1 }, idempotencyKey: 'order-1' },
        { db: client },
      );
      await client.query('COMMIT');
      expect(releases()).toBe(0);

      expect(await queue.getJob(id)).toMatchObject({ id, status: 'pending', payload: { order: 1 } });
      expect((await queue.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added']);
      // The key is taken for good now.
      expect(await queue.addJob({ jobType: 'email', payload: {}, idempotencyKey: 'order-1' })).toBe(id);
    } finally {
      done();
    }
  });

  it('a job added in an open transaction cannot be claimed until the commit', async () => {
    const queue = ctx.queue();
    const { client, done } = await trackedClient();
    try {
      await client.query('BEGIN');
      const id = await queue.addJob({ jobType: 'later', payload: {} }, { db: client });
      const claim = () => backendOf(queue).claimJobs({ workerId: 'w', batchSize: 5, now: new Date() });
      expect(await claim()).toEqual([]);
      await client.query('COMMIT');
      expect((await claim()).map((j) => j.id)).toEqual([id]);
    } finally {
      done();
    }
  });

  it('adds a batch of 500 jobs in one round trip on the given client', async () => {
    const queue = ctx.queue();
    const texts: string[] = [];
    const db: Queryable = {
      query: (text, values) => {
        texts.push(text);
        return ctx.sql.query(text, values);
      },
    };
    const ids = await queue.addJobs(
      Array.from({ length: 500 }, (_, i) => ({ jobType: 'bulk', payload: { i }, idempotencyKey: `k${i % 400}` })),
      { db },
    );
    expect(texts).toHaveLength(1);
    expect(new Set(ids).size).toBe(400);
    expect(await countRows()).toEqual({ jobs: 400, events: 400 });
  });

  it('resolves a key that a concurrent transaction commits first to that job, placeholders included', async () => {
    const queue = ctx.queue();
    const { client, done } = await trackedClient();
    try {
      await client.query('BEGIN');
      const winner = await queue.addJob({ jobType: 'first', payload: {}, idempotencyKey: 'race' }, { db: client });
      // This batch does not see the uncommitted job, so it tries to insert the key too and waits.
      const batch = queue.addJobs([
        { jobType: 'second', payload: {}, idempotencyKey: 'race' },
        { jobType: 'after', payload: {}, dependsOn: { jobIds: [batchDepRef(0)] } },
      ]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await client.query('COMMIT');
      const [raced, after] = await batch;

      expect(raced).toBe(winner);
      expect(await queue.getJob(winner)).toMatchObject({ jobType: 'first' });
      // The dependent points at the job that exists, not at the id the losing insert drew.
      expect(await queue.getJob(after!)).toMatchObject({ jobType: 'after', dependsOnJobIds: [winner] });
      expect((await queue.getAllJobs()).map((j) => j.jobType).sort()).toEqual(['after', 'first']);
    } finally {
      done();
    }
  });
});
