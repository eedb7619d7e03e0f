/**
 * Cron schedules under contention (DETAILS "Cron schedule record"): processors in four OS
 * processes call `start()` at the same instant, round after round, each round with a due slot
 * for every schedule. Each slot must be enqueued exactly once. Workers are
 * test/fixtures/cron-processor.ts; they share a manual clock value sent with each round.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { ManualClock, PG_URL, REDIS_URL, forEachBackend } from '../helpers/backends.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/cron-processor.ts', import.meta.url));
const T0 = new Date('2030-01-01T00:00:00Z').getTime();
const MINUTE = 60_000;
const WORKERS = 4;
const SCHEDULES = 6;
const ROUNDS = 5;
/** Wall-clock lead time of the barrier: long enough for the message to reach every process. */
const BARRIER_MS = 500;

interface Reply {
  round: number;
  processed: number;
  arrivedAt: number;
}

const SEVERAL_PROCESSES = {
  title: 'cron schedules in several processes',
  skip: { pglite: 'a PGlite database lives in one process, and this test starts several' },
};

forEachBackend(SEVERAL_PROCESSES, (ctx) => {
  let children: ChildProcess[] = [];

  afterEach(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    children = [];
  });

  async function spawnWorker(workerId: string): Promise<ChildProcess> {
    const child = fork(FIXTURE, [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      env: {
        ...process.env,
        QD_BACKEND: ctx.backend,
        QD_PG_URL: PG_URL,
        QD_SCHEMA: ctx.schema,
        QD_REDIS_URL: REDIS_URL,
        QD_REDIS_CLUSTER: ctx.clusterNodes,
        QD_PREFIX: ctx.keyPrefix,
        QD_WORKER_ID: workerId,
      },
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) =>
        reject(new Error(`worker ${workerId} exited with ${code} before starting: ${stderr}`)),
      );
    });
    return child;
  }

  /**
   * Sends one round to every worker and resolves with what each processed. Checks the barrier
   * held: every worker had the message before the shared start time, so all started together.
   */
  async function runRound(workers: ChildProcess[], round: number): Promise<number> {
    const at = Date.now() + BARRIER_MS;
    const clockMs = T0 + round * MINUTE;
    const replies = await Promise.all(
      workers.map(
        (child) =>
          new Promise<Reply>((resolve, reject) => {
            const onExit = (code: number | null) =>
              reject(new Error(`a worker exited with ${code} during round ${round}`));
            child.once('exit', onExit);
            child.on('message', function reply(m: Reply) {
              if (m.round !== round) return;
              child.off('message', reply);
              child.off('exit', onExit);
              resolve(m);
            });
            child.send({ round, clockMs, at });
          }),
      ),
    );
    for (const r of replies)
      expect(r.arrivedAt, `round ${round} reached a worker after the start time`).toBeLessThanOrEqual(at);
    return replies.reduce((sum, r) => sum + r.processed, 0);
  }

  it(`${WORKERS} processes starting together enqueue each due slot exactly once`, { timeout: 60_000 }, async () => {
    const clock = new ManualClock(T0);
    const queue = ctx.makeQueue({ clock });
    const names = Array.from({ length: SCHEDULES }, (_, i) => `every-minute-${i}`);
    for (const name of names) {
      // allowOverlap: every slot must produce a job whatever the earlier instances are doing,
      // so the expected count per schedule is exact.
      await queue.addCronJob({
        scheduleName: name,
        cronExpression: '* * * * *',
        jobType: 'tick',
        payload: { schedule: name },
        allowOverlap: true,
      });
    }
    const workers = await Promise.all(Array.from({ length: WORKERS }, (_, i) => spawnWorker(`cron-w${i + 1}`)));

    let processed = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      // Round r: the clock stands at minute r, where every schedule has exactly one due slot.
      processed += await runRound(workers, round);
    }
    await Promise.all(
      workers.map(
        (child) =>
          new Promise<void>((resolve) => {
            child.once('exit', () => resolve());
            child.send('exit');
          }),
      ),
    );

    const jobs = await queue.getAllJobs();
    const perSchedule = new Map<string, number>();
    for (const job of jobs) {
      const name = (job.payload as { schedule: string }).schedule;
      perSchedule.set(name, (perSchedule.get(name) ?? 0) + 1);
    }
    expect(Object.fromEntries(perSchedule)).toEqual(Object.fromEntries(names.map((n) => [n, ROUNDS])));
    for (const schedule of await queue.listCronJobs()) {
      expect(schedule.nextRunAt).toEqual(new Date(T0 + (ROUNDS + 1) * MINUTE));
      expect(jobs.some((j) => j.id === schedule.lastJobId)).toBe(true);
    }

    // A job enqueued by one process after another had claimed is left for a later pass; once
    // the rest is run here, every job has run exactly once in all.
    clock.set(T0 + ROUNDS * MINUTE);
    processed += await queue.createProcessor({ tick: async () => {} }, { batchSize: 100 }).start();
    expect(processed).toBe(SCHEDULES * ROUNDS);
    expect(await queue.getJobsByStatus('completed')).toHaveLength(SCHEDULES * ROUNDS);
  });
});
