/**
 * The `added` event a plain add keeps in its job's row (migration 013): the add writes no row of
 * job_events, the history reads the event in its place, and the cleanup clears old ones without
 * ever waiting for a job another transaction holds (it skips it, for the next cleanup).
 */
import { describe, expect, it } from 'vitest';
import { backendOf } from '../../src/queue.js';
import { ManualClock } from '../helpers/backends.js';
import { usePostgres } from './support.js';

const T0 = new Date('2030-06-01T12:00:00.000Z');
const DAY = 86_400_000;

describe('the added event kept in the job row (postgres)', () => {
  const ctx = usePostgres();

  const storedEvents = async (jobId: number) =>
    (
      await ctx.sql.query(`SELECT event_type FROM ${ctx.table('job_events')} WHERE job_id = $1 ORDER BY id`, [jobId])
    ).rows.map((r) => r.event_type as string);

  it('keeps the event of a plain job in its row, and of a tagged or keyed one in job_events', async () => {
    const queue = ctx.queue();
    const plain = await queue.addJob({ jobType: 'a', payload: {} });
    const [batched] = await queue.addJobs([{ jobType: 'a', payload: {} }]);
    const tagged = await queue.addJob({ jobType: 'a', payload: {}, tags: ['t'] });
    const keyed = await queue.addJob({ jobType: 'a', payload: {}, idempotencyKey: 'k' });
    for (const id of [plain, batched!]) expect(await storedEvents(id)).toEqual([]);
    for (const id of [tagged, keyed]) expect(await storedEvents(id)).toEqual(['added']);
    for (const id of [plain, batched!, tagged, keyed]) {
      const [added] = await queue.getJobEvents(id);
      expect(added).toMatchObject({ jobId: id, eventType: 'added' });
    }
    // The in-row event orders before the events written after it.
    await queue.editJob(plain, { priority: 2 });
    await queue.cancelJob(plain);
    const history = await queue.getJobEvents(plain);
    expect(history.map((e) => e.eventType)).toEqual(['added', 'edited', 'cancelled']);
    expect(history.map((e) => e.id)).toEqual([...history.map((e) => e.id)].sort((a, b) => a - b));
  });

  it('cleans up an old in-row event, skipping a job another transaction holds until it is free', async () => {
    const clock = new ManualClock(T0);
    const queue = ctx.queue({ clock });
    const [held, free] = (await queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'a', payload: {} },
    ])) as [number, number];
    const cleanup = () =>
      backendOf(queue).cleanupOldJobEvents({ olderThan: new Date(T0.getTime() + DAY), batchSize: 10 });

    const client = await ctx.sql.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT 1 FROM ${ctx.table('job_queue')} WHERE id = $1 FOR UPDATE`, [held]);
      // Returns at once with the free job's event only; the held job is not waited for.
      expect(await cleanup()).toBe(1);
      expect(await queue.getJobEvents(free)).toEqual([]);
      expect((await queue.getJobEvents(held)).map((e) => e.eventType)).toEqual(['added']);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    expect(await cleanup()).toBe(1);
    expect(await queue.getJobEvents(held)).toEqual([]);
    expect(await queue.getJob(held)).toMatchObject({ status: 'pending' });
  });
});
