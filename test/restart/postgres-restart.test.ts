/**
 * Issue 3 on PostgreSQL: the server stops (fast shutdown) under a running background processor,
 * stays down about two seconds and starts again, with jobs added before and after. The processor
 * reports the outage through onError and the `error` event, keeps running, and once the server
 * is back finishes every job: none is lost, none is left pending or processing.
 *
 * The "exactly once" asserted here:
 * - every job ends `completed` with exactly one `completed` event: its completion is recorded once;
 * - its handler ran exactly once, unless the job had to be reclaimed. A claim that committed but
 *   whose answer died with the connection leaves a job `processing`, locked to this worker, that
 *   no handler runs; reclaimStuckJobs after the restart, limited to jobs locked before the outage,
 *   hands it out again. Reclaim is at-least-once: a reclaimed job whose handler had already run
 *   (its completion given up on) runs again, so for reclaimed jobs the bound is two runs.
 * A completion that could not be written during the outage is retried by the processor and lands
 * once the server is back, so that job is not reclaimed and its handler ran once.
 *
 * Runs alone (vitest.restart.config.ts): stopping the server breaks any test running beside it.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { migrate } from '../../src/index.js';
import { initJobQueue } from '../../src/queue.js';
import type { JobRecord } from '../../src/types.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { PG_URL, uniqueName } from '../helpers/backends.js';
import { postgresServer } from './servers.js';
import { OUTAGE_MS, RESTART_TESTS_ENABLED, numberOf, sameErrors, startWorkload } from './support.js';

const server = postgresServer(PG_URL);
const schema = uniqueName('qrestart');
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe.runIf(RESTART_TESTS_ENABLED)('PostgreSQL server restart under a running processor (issue 3)', () => {
  let admin: pg.Pool | undefined;
  let failed = false;

  beforeAll(async () => {
    await server.ensureRunning();
    await migrate({ databaseUrl: PG_URL, schema });
    admin = new pg.Pool({ connectionString: PG_URL, max: 2 });
    // Its idle connections die with the server: without a listener that error ends the process.
    admin.on('error', () => undefined);
  });

  afterAll(async () => {
    // Whatever the test did, leave a running server for what runs next.
    await server.ensureRunning();
    if (!admin) return;
    if (!failed) await admin.query(`DROP SCHEMA "${schema}" CASCADE`);
    else console.warn(`[test] kept schema ${schema} after a failure`);
    await admin.end();
  });

  it('reports the outage, carries on once the server is back and loses no job', { timeout: 60_000 }, async () => {
    onTestFailed(() => {
      failed = true;
    });
    const queue = initJobQueue({ databaseConfig: { connectionString: PG_URL }, schema });
    const work = startWorkload(queue);
    try {
      await work.add(0, 60);
      await waitFor(() => work.runs.size >= 10, { timeoutMs: 10_000, what: 'the first jobs to run' });

      await server.stop();
      const downAt = Date.now();
      let reportedWhileDown: Error[] = [];
      try {
        await waitFor(() => work.onError.length > 0, {
          timeoutMs: OUTAGE_MS + 3000,
          what: `${server.name} being down to be reported`,
        });
        await sleep(downAt + OUTAGE_MS - Date.now());
        reportedWhileDown = [...work.onError];
      } finally {
        await server.start();
      }
      expect(reportedWhileDown.some((e) => e.message.startsWith('claiming jobs failed'))).toBe(true);

      await work.add(60, 100);
      await waitFor(() => work.ran(60, 100), { timeoutMs: 20_000, what: 'the jobs added after the restart to run' });
      // Writes that failed during the outage are retried; once they have landed, a job still
      // processing was claimed before the outage and its handler never ran.
      let settled: JobRecord[] = [];
      await waitFor(
        async () => {
          settled = await queue.getAllJobs();
          return settled.every(
            (j) => j.status !== 'pending' && !(j.status === 'processing' && work.runs.has(numberOf(j))),
          );
        },
        { timeoutMs: 20_000, what: 'every job that ran to be recorded' },
      );
      const stuck = new Set(settled.filter((j) => j.status === 'processing').map((j) => j.id));
      // A threshold of the time since the outage began: only jobs locked before it qualify, never
      // one the processor claims meanwhile.
      expect(await queue.reclaimStuckJobs((Date.now() - downAt) / 60_000)).toBe(stuck.size);
      await waitFor(async () => (await queue.getJobsByStatus('completed')).length === 100, {
        timeoutMs: 20_000,
        what: 'all 100 jobs to complete',
      });
      expect(work.processor.isRunning()).toBe(true);

      const jobs = await queue.getAllJobs();
      expect(jobs.map(numberOf).sort((a, b) => a - b)).toEqual(range(0, 100));
      expect(jobs.filter((j) => j.status !== 'completed')).toEqual([]);
      const runsOf = (j: (typeof jobs)[number]) => ({ id: j.id, n: numberOf(j), runs: work.runs.get(numberOf(j)) });
      expect(
        jobs
          .filter((j) => !stuck.has(j.id))
          .map(runsOf)
          .filter((r) => r.runs !== 1),
      ).toEqual([]);
      expect(
        jobs
          .filter((j) => stuck.has(j.id))
          .map(runsOf)
          .filter((r) => !(r.runs! >= 1 && r.runs! <= 2)),
      ).toEqual([]);
      // A completed event is a row of job_events or kept in the job's row (migration 018).
      const completedEvents = await admin!.query<{ id: number; count: number }>(
        `SELECT id, count(*)::int AS count FROM (
           SELECT job_id::int AS id FROM "${schema}".job_events WHERE event_type = 'completed'
           UNION ALL
           SELECT id::int FROM "${schema}".job_queue WHERE completed_event_id IS NOT NULL
         ) e GROUP BY id`,
      );
      expect(completedEvents.rows).toHaveLength(100);
      expect(completedEvents.rows.filter((r) => r.count !== 1)).toEqual([]);
      // Both channels got the same errors (the same objects, in the same order).
      expect(sameErrors(work.errorEvents, work.onError)).toBe(true);
    } finally {
      await work.processor.stopAndDrain(5000);
      await queue.close();
    }
  });
});
