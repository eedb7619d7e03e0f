/**
 * A dependent added while its prerequisite fails for good is never left behind. The add locks
 * the prerequisite's row until it commits, so the final failure waits for that commit; the
 * cascade (and the hint it asks first, migration 017) then runs as statements of their own,
 * whose snapshot is taken after the wait and sees the new dependent. Driven with real
 * connections: the add's transaction is held open while the failure waits on it.
 */
import { expect, it } from 'vitest';
import { backendOf } from '../../src/queue.js';
import { usePostgres } from './support.js';
import { failOne } from '../helpers/fail.js';

const ctx = usePostgres();

it('cancels a dependent whose add committed while the final failure of its prerequisite waited for it', async () => {
  const queue = ctx.queue();
  const backend = backendOf(queue);
  const parent = await queue.addJob({ jobType: 'parent', payload: {}, maxAttempts: 1 });
  const [claimed] = await backend.claimJobs({ workerId: 'w', batchSize: 1, now: new Date() });
  expect(claimed?.id).toBe(parent);

  const client = await ctx.sql.connect();
  try {
    await client.query('BEGIN');
    const child = await queue.addJob(
      { jobType: 'child', payload: {}, dependsOn: { jobIds: [parent] } },
      { db: client },
    );
    const failing = failOne(backend, {
      jobId: parent,
      workerId: 'w',
      message: 'down',
      reason: 'handler_error',
      retryAt: null,
      now: new Date(),
    });
    // The failure waits on the add's lock of the parent's row, until the add commits.
    await expect.poll(async () => failureWaitsOnLock(), { timeout: 10_000 }).toBe(true);
    await client.query('COMMIT');
    expect(await failing).toEqual({ deadLetterJobId: null, cascaded: [{ jobId: child, cascadeFrom: parent }] });
    expect((await queue.getJob(child))?.status).toBe('cancelled');
  } finally {
    client.release();
  }
});

/**
 * Whether the final failure's statement (on this file's schema) waits for a lock. Its start is
 * enough: pg_stat_activity keeps the first kilobyte of a statement's text.
 */
async function failureWaitsOnLock(): Promise<boolean> {
  const { rows } = await ctx.sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE wait_event_type = 'Lock' AND query LIKE '%src AS MATERIALIZED (%' AND strpos(query, $1) > 0`,
    [`"${ctx.schema}".job_queue`],
  );
  return rows[0]!.n > 0;
}
