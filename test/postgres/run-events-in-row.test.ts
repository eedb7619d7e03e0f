/**
 * The `processing` event of a job's attempt and its `completed` event, kept in the job's row
 * (migration 018): claims and completions write no row of job_events, a job leaving processing
 * otherwise writes its kept event out, the history reads the events in their place, and the
 * cleanup removes old ones by raising a floor of (finish time, id), writing no job row.
 */
import { describe, expect, it } from 'vitest';
import { backendOf } from '../../src/queue.js';
import { ManualClock } from '../helpers/backends.js';
import { usePostgres } from './support.js';

const T0 = new Date('2031-03-01T12:00:00.000Z');
const DAY = 86_400_000;
const at = (ms: number) => new Date(T0.getTime() + ms);

describe('the processing and completed events kept in the job row (postgres)', () => {
  const ctx = usePostgres();

  const storedEvents = async (jobId: number) =>
    (
      await ctx.sql.query(`SELECT event_type FROM ${ctx.table('job_events')} WHERE job_id = $1 ORDER BY id`, [jobId])
    ).rows.map((r) => r.event_type as string);

  const kept = async (jobId: number) =>
    (
      await ctx.sql.query(
        `SELECT processing_event_id IS NOT NULL AS processing, completed_event_id IS NOT NULL AS completed
         FROM ${ctx.table('job_queue')} WHERE id = $1`,
        [jobId],
      )
    ).rows[0] as { processing: boolean; completed: boolean };

  /** A queue on a manual clock at T0, with `n` plain jobs (and `options`) added. */
  async function withJobs(n: number, options: { maxAttempts?: number } = {}) {
    const clock = new ManualClock(T0);
    const queue = ctx.queue({ clock });
    const ids = await queue.addJobs(Array.from({ length: n }, () => ({ jobType: 'a', payload: {}, ...options })));
    return { clock, queue, backend: backendOf(queue), ids };
  }

  const ascendingIds = (events: { id: number }[]) => {
    const ids = events.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
  };

  it('a claim and a completion write no row of job_events; the history reads both events in their place', async () => {
    const { clock, queue, backend, ids } = await withJobs(1);
    const jobId = ids[0]!;
    clock.set(at(1_000));
    const [claimed] = await backend.claimJobs({ workerId: 'w', batchSize: 1, now: clock.now() });
    expect(claimed!.id).toBe(jobId);
    expect(await kept(jobId)).toEqual({ processing: true, completed: false });
    clock.set(at(2_000));
    expect(await backend.prolongJob({ jobId, workerId: 'w', timeoutMs: 60_000, now: clock.now() })).toBe(true);
    clock.set(at(3_000));
    expect(await backend.completeJobs([{ jobId, workerId: 'w' }], clock.now())).toEqual([jobId]);

    expect(await storedEvents(jobId)).toEqual(['prolonged']);
    expect(await kept(jobId)).toEqual({ processing: true, completed: true });
    const history = await queue.getJobEvents(jobId);
    expect(history.map((e) => [e.eventType, e.createdAt.getTime()])).toEqual([
      ['added', T0.getTime()],
      ['processing', at(1_000).getTime()],
      ['prolonged', at(2_000).getTime()],
      ['completed', at(3_000).getTime()],
    ]);
    expect(history.slice(1).map((e) => e.metadata)).toEqual([null, { timeoutMs: 60_000 }, null]);
    ascendingIds(history);
  });

  it('a failure, a reclaim and a wait write the kept event out; each next attempt keeps its own', async () => {
    const { clock, queue, backend, ids } = await withJobs(1, { maxAttempts: 3 });
    const jobId = ids[0]!;
    const claim = async () => {
      const [job] = await backend.claimJobs({ workerId: 'w', batchSize: 1, now: clock.now() });
      expect(job!.id).toBe(jobId);
    };

    await claim();
    await backend.failJobs(
      [{ jobId, workerId: 'w', message: 'boom', reason: 'handler_error', retryAt: clock.now() }],
      clock.now(),
    );
    expect(await storedEvents(jobId)).toEqual(['processing', 'failed']);
    expect(await kept(jobId)).toEqual({ processing: false, completed: false });

    clock.set(at(1_000));
    await claim();
    clock.set(at(10 * DAY));
    expect((await backend.reclaimStuckJobs({ maxProcessingMs: 1_000, now: clock.now() })).requeuedIds).toEqual([jobId]);
    expect(await storedEvents(jobId)).toEqual(['processing', 'failed', 'processing', 'failed']);
    expect(await kept(jobId)).toEqual({ processing: false, completed: false });

    await claim();
    expect(
      await backend.enterWait({
        jobId,
        workerId: 'w',
        waitUntil: at(10 * DAY + 1_000),
        tokenId: null,
        now: clock.now(),
      }),
    ).toMatchObject({ status: 'waiting' });
    expect(await storedEvents(jobId)).toEqual([
      'processing',
      'failed',
      'processing',
      'failed',
      'processing',
      'waiting',
    ]);

    clock.set(at(10 * DAY + 2_000));
    await claim();
    await backend.failJobs(
      [{ jobId, workerId: 'w', message: 'again', reason: 'handler_error', retryAt: null }],
      clock.now(),
    );
    const history = await queue.getJobEvents(jobId);
    expect(history.map((e) => e.eventType)).toEqual([
      'added',
      'processing',
      'failed',
      'processing',
      'failed',
      'processing',
      'waiting',
      'processing',
      'failed',
    ]);
    ascendingIds(history);
    // The history as stored: every processing event is a row, with its own time.
    expect(history.filter((e) => e.eventType === 'processing').map((e) => e.createdAt.getTime())).toEqual([
      T0.getTime(),
      at(1_000).getTime(),
      at(10 * DAY).getTime(),
      at(10 * DAY + 2_000).getTime(),
    ]);
    expect(await kept(jobId)).toEqual({ processing: false, completed: false });
  });

  it('a claim writes out an event an earlier version left kept in the row before keeping its own', async () => {
    const { clock, queue, backend, ids } = await withJobs(2);
    const [viaOrdered, viaHint] = ids as [number, number];
    for (const jobId of [viaOrdered, viaHint]) {
      const [job] = await backend.claimJobs({ workerId: 'w', batchSize: 1, now: clock.now() });
      expect(job!.id).toBe(jobId);
    }
    // A process of an earlier version fails both, writing its own event and leaving the kept one.
    await ctx.sql.query(
      `UPDATE ${ctx.table('job_queue')} SET status = 'pending', locked_by = NULL, locked_at = NULL WHERE id = ANY($1::bigint[])`,
      [[viaOrdered, viaHint]],
    );
    await ctx.sql.query(
      `INSERT INTO ${ctx.table('job_events')} (job_id, event_type, created_at) SELECT unnest($1::bigint[]), 'failed', $2`,
      [[viaOrdered, viaHint], T0],
    );
    clock.set(at(1_000));
    const [first] = await backend.claimJobs({ workerId: 'w', batchSize: 1, now: clock.now() });
    expect(first!.id).toBe(viaOrdered);
    // The claim by id of the job a wake-up announced.
    const [second] = await backend.claimJobs({ workerId: 'w', batchSize: 1, now: clock.now(), jobId: viaHint });
    expect(second!.id).toBe(viaHint);
    for (const jobId of [viaOrdered, viaHint]) {
      expect(await storedEvents(jobId)).toEqual(['processing', 'failed']);
      const history = await queue.getJobEvents(jobId);
      expect(history.map((e) => [e.eventType, e.createdAt.getTime()])).toEqual([
        ['added', T0.getTime()],
        ['processing', T0.getTime()],
        ['failed', T0.getTime()],
        ['processing', at(1_000).getTime()],
      ]);
    }
  });

  it('a retry keeps an event left kept in the row for the next claim, unless the cleanup removed it', async () => {
    const { clock, queue, backend, ids } = await withJobs(2);
    const [removed, kept] = ids as [number, number];
    await backend.claimJobs({ workerId: 'w', batchSize: 2, now: clock.now() });
    // A process of an earlier version fails both for good, leaving their kept events; the first
    // one earlier, so that a cleanup passes it alone.
    const failByEarlierVersion = (jobId: number, at: Date) =>
      ctx.sql.query(
        `UPDATE ${ctx.table('job_queue')} SET status = 'failed', locked_by = NULL, locked_at = NULL, updated_at = $2
         WHERE id = $1`,
        [jobId, at],
      );
    await failByEarlierVersion(removed, T0);
    await failByEarlierVersion(kept, at(2 * DAY));
    clock.set(at(3 * DAY));
    // Both `added` events and the first job's kept processing event.
    expect(await backend.cleanupOldJobEvents({ olderThan: at(DAY), batchSize: 10 })).toBe(3);
    expect(await queue.getJobEvents(removed)).toEqual([]);

    for (const jobId of [removed, kept]) await queue.retryJob(jobId);
    expect((await queue.getJobEvents(removed)).map((e) => e.eventType)).toEqual(['retried']);
    expect((await queue.getJobEvents(kept)).map((e) => e.eventType)).toEqual(['processing', 'retried']);
    // The next claim writes the kept one out and keeps its own.
    clock.set(at(4 * DAY));
    expect((await backend.claimJobs({ workerId: 'w', batchSize: 2, now: clock.now() })).map((j) => j.id)).toEqual([
      removed,
      kept,
    ]);
    expect(await storedEvents(removed)).toEqual(['retried']);
    expect(await storedEvents(kept)).toEqual(['processing', 'retried']);
    expect((await queue.getJobEvents(kept)).map((e) => [e.eventType, e.createdAt.getTime()])).toEqual([
      ['processing', T0.getTime()],
      ['retried', at(3 * DAY).getTime()],
      ['processing', at(4 * DAY).getTime()],
    ]);
  });

  it('removes old kept events by raising a floor: exact counts across jobs finished at one instant, no job row written', async () => {
    const { clock, queue, backend, ids } = await withJobs(5);
    const claimed = await backend.claimJobs({ workerId: 'w', batchSize: 4, now: clock.now() });
    expect(claimed.map((j) => j.id)).toEqual(ids.slice(0, 4));
    // Three complete in one call (one instant); the fourth is still processing; the fifth is pending.
    expect(
      await backend.completeJobs(
        ids.slice(0, 3).map((jobId) => ({ jobId, workerId: 'w' })),
        clock.now(),
      ),
    ).toEqual(ids.slice(0, 3));
    clock.set(at(2 * DAY));
    const versions = async () =>
      (await ctx.sql.query(`SELECT id::int, xmin::text FROM ${ctx.table('job_queue')} ORDER BY id`)).rows;
    const before = await versions();

    // Batches of one cross the three jobs finished at the same instant: each job's two events
    // count once. The `added` events (5, in rows) go too; the processing job keeps its kept event.
    const removed = await backend.cleanupOldJobEvents({ olderThan: at(DAY), batchSize: 1 });
    expect(removed).toBe(5 + 3 * 2);
    expect(await versions()).toEqual(before);
    for (const jobId of ids.slice(0, 3)) expect(await queue.getJobEvents(jobId)).toEqual([]);
    expect((await queue.getJobEvents(ids[3]!)).map((e) => e.eventType)).toEqual(['processing']);
    expect(await queue.getJobEvents(ids[4]!)).toEqual([]);
    expect(await backend.cleanupOldJobEvents({ olderThan: at(DAY), batchSize: 1 })).toBe(0);

    // The job still processing completes later: its events stay until they are older than a cutoff.
    expect(await backend.completeJobs([{ jobId: ids[3]!, workerId: 'w' }], clock.now())).toEqual([ids[3]]);
    expect((await queue.getJobEvents(ids[3]!)).map((e) => e.eventType)).toEqual(['processing', 'completed']);
    expect(await backend.cleanupOldJobEvents({ olderThan: at(DAY), batchSize: 1 })).toBe(0);
    expect(await backend.cleanupOldJobEvents({ olderThan: at(3 * DAY), batchSize: 10 })).toBe(2);
    expect(await queue.getJobEvents(ids[3]!)).toEqual([]);
  });

  it('a cleanup walks past a job another transaction holds, without waiting for it', async () => {
    const { clock, queue, backend, ids } = await withJobs(2);
    const [held, free] = ids as [number, number];
    await backend.claimJobs({ workerId: 'w', batchSize: 2, now: clock.now() });
    await backend.completeJobs(
      [held, free].map((jobId) => ({ jobId, workerId: 'w' })),
      clock.now(),
    );
    clock.set(at(2 * DAY));
    const client = await ctx.sql.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT 1 FROM ${ctx.table('job_queue')} WHERE id = $1 FOR UPDATE`, [held]);
      expect(await backend.cleanupOldJobEvents({ olderThan: at(DAY), batchSize: 10 })).toBe(2 * 3);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    for (const jobId of [held, free]) expect(await queue.getJobEvents(jobId)).toEqual([]);
    expect(await queue.getJob(held)).toMatchObject({ status: 'completed' });
  });
});
