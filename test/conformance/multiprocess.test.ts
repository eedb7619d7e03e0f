/**
 * Processors in several OS processes on one store: every job runs exactly once, group limits
 * hold across processes, a killed worker's job is reclaimed and finished elsewhere, and a
 * processor survives its connections being cut. Workers are test/fixtures/processor-worker.ts.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Cluster, Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { PG_URL, REDIS_URL, forEachBackend } from '../helpers/backends.js';
import { ownedQueue, trackRunners } from './processing-support.js';
import { waitFor } from '../helpers/wait.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/processor-worker.ts', import.meta.url));

const MULTIPLE_PROCESSES = {
  title: 'multiple processes',
  skip: { pglite: 'a PGlite database lives in one process, and these tests run processors in several' },
};

forEachBackend(MULTIPLE_PROCESSES, (ctx) => {
  const track = trackRunners();
  let children: ChildProcess[] = [];

  beforeEach(async () => {
    if (ctx.backend !== 'postgres') return;
    const s = `"${ctx.schema}"`;
    await ctx.sql.query(`
      CREATE TABLE IF NOT EXISTS ${s}.test_runs (n INTEGER NOT NULL, worker TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS ${s}.test_group_live (group_id TEXT PRIMARY KEY, n INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS ${s}.test_group_seen (group_id TEXT NOT NULL, n INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS ${s}.test_hangs (n INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS ${s}.test_notes (text TEXT NOT NULL);
      TRUNCATE ${s}.test_runs, ${s}.test_group_live, ${s}.test_group_seen, ${s}.test_hangs, ${s}.test_notes;
    `);
  });

  afterEach(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    children = [];
  });

  /** Starts a worker process and resolves once its processor runs. */
  async function spawnWorker(workerId: string, env: Record<string, string> = {}): Promise<ChildProcess> {
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
        ...env,
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

  async function stopWorkers(list: ChildProcess[]): Promise<void> {
    await Promise.all(
      list.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) {
              resolve();
              return;
            }
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
  }

  async function runs(): Promise<{ n: number; worker: string }[]> {
    if (ctx.backend === 'postgres')
      return (await ctx.sql.query(`SELECT n, worker FROM "${ctx.schema}".test_runs`)).rows;
    const entries = await ctx.redis.lrange(`${ctx.keyPrefix}test:runs`, 0, -1);
    return entries.map((e) => ({ n: Number(e.split(':')[0]), worker: e.slice(e.indexOf(':') + 1) }));
  }

  async function runCount(): Promise<number> {
    if (ctx.backend === 'postgres')
      return (await ctx.sql.query(`SELECT count(*)::int AS c FROM "${ctx.schema}".test_runs`)).rows[0].c;
    return ctx.redis.llen(`${ctx.keyPrefix}test:runs`);
  }

  async function groupSeen(group: string): Promise<number[]> {
    if (ctx.backend === 'postgres') {
      return (
        await ctx.sql.query(`SELECT n FROM "${ctx.schema}".test_group_seen WHERE group_id = $1`, [group])
      ).rows.map((r) => r.n);
    }
    return (await ctx.redis.lrange(`${ctx.keyPrefix}test:seen:${group}`, 0, -1)).map(Number);
  }

  async function hangs(): Promise<number> {
    if (ctx.backend === 'postgres')
      return (await ctx.sql.query(`SELECT count(*)::int AS c FROM "${ctx.schema}".test_hangs`)).rows[0].c;
    return ctx.redis.llen(`${ctx.keyPrefix}test:hangs`);
  }

  async function notes(): Promise<string[]> {
    if (ctx.backend === 'postgres')
      return (await ctx.sql.query(`SELECT text FROM "${ctx.schema}".test_notes`)).rows.map((r) => r.text);
    return ctx.redis.lrange(`${ctx.keyPrefix}test:notes`, 0, -1);
  }

  it('four processes drain 2,000 jobs, each exactly once', { timeout: 120_000 }, async () => {
    const workers = await Promise.all([1, 2, 3, 4].map((i) => spawnWorker(`w${i}`, { QD_CONCURRENCY: '10' })));
    // Added after every worker is up, so all four compete for the same jobs.
    for (let chunk = 0; chunk < 4; chunk++) {
      await ctx.queue.addJobs(
        Array.from({ length: 500 }, (_, i) => ({ jobType: 'count', payload: { n: chunk * 500 + i } })),
      );
    }
    await waitFor(async () => (await runCount()) >= 2000, { timeoutMs: 90_000, what: '2,000 handler runs' });
    await waitFor(async () => (await ctx.queue.getJobsByStatus('completed')).length === 2000, {
      timeoutMs: 10_000,
      what: '2,000 completed jobs',
    });
    await stopWorkers(workers);
    const all = await runs();
    expect(all).toHaveLength(2000);
    expect(new Set(all.map((r) => r.n)).size).toBe(2000);
    expect(new Set(all.map((r) => r.worker)).size).toBeGreaterThan(1);
  });

  it('groupConcurrency 2 holds across three processes', { timeout: 60_000 }, async () => {
    const workers = await Promise.all(
      [1, 2, 3].map((i) => spawnWorker(`g${i}`, { QD_CONCURRENCY: '5', QD_GROUP_CONCURRENCY: '2' })),
    );
    await ctx.queue.addJobs(
      Array.from({ length: 30 }, (_, n) => ({
        jobType: 'group',
        payload: { n, group: `t${n % 2}` },
        group: { id: `t${n % 2}` },
      })),
    );
    await waitFor(async () => (await runCount()) >= 30, { timeoutMs: 45_000, what: '30 group jobs' });
    await stopWorkers(workers);
    const seen = [...(await groupSeen('t0')), ...(await groupSeen('t1'))];
    expect(seen).toHaveLength(30);
    expect(Math.max(...seen)).toBe(2); // reached, never exceeded
  });

  it(
    'reclaims the job of a worker killed mid-handler; another processor completes it',
    { timeout: 60_000 },
    async () => {
      const worker = await spawnWorker('doomed');
      const id = await ctx.queue.addJob({ jobType: 'hang', payload: { n: 1 } });
      await waitFor(async () => (await hangs()) === 1, { timeoutMs: 20_000, what: 'the handler to start' });
      await new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.kill('SIGKILL');
      });
      expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'processing', lockedBy: 'doomed' });
      // Threshold 0: anything processing counts as stuck, and nothing else is processing here.
      expect((await ctx.queue.createSupervisor({ stuckJobsTimeoutMinutes: 0 }).start()).reclaimedJobs).toBe(1);
      expect(await ctx.queue.createProcessor({ hang: async () => 'recovered' }, { workerId: 'rescuer' }).start()).toBe(
        1,
      );
      expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'completed', attempts: 2, output: 'recovered' });
    },
  );

  it(
    'reclaims the claimed-ahead jobs of a worker killed with them buffered; each runs once elsewhere',
    { timeout: 60_000 },
    async () => {
      // One slot, ten more jobs claimed ahead: the first hangs, the others wait in the buffer.
      const worker = await spawnWorker('hoarder', { QD_CONCURRENCY: '1', QD_BATCH_SIZE: '11', QD_CLAIM_AHEAD: '10' });
      const ids = await ctx.queue.addJobs(Array.from({ length: 11 }, (_, n) => ({ jobType: 'hang', payload: { n } })));
      await waitFor(async () => (await hangs()) === 1, { timeoutMs: 20_000, what: 'the first handler to start' });
      await waitFor(async () => (await ctx.queue.getJobsByStatus('processing')).length === 11, {
        what: 'eleven jobs locked to the worker',
      });
      await new Promise<void>((resolve) => {
        worker.once('exit', () => resolve());
        worker.kill('SIGKILL');
      });
      const held = await ctx.queue.getJobsByStatus('processing');
      expect(held.map((j) => j.lockedBy)).toEqual(Array(11).fill('hoarder'));
      expect((await ctx.queue.createSupervisor({ stuckJobsTimeoutMinutes: 0 }).start()).reclaimedJobs).toBe(11);
      const rescued: number[] = [];
      const rescuer = ctx.queue.createProcessor(
        { hang: async (p: { n: number }) => void rescued.push(p.n) },
        { workerId: 'rescuer', batchSize: 20 },
      );
      expect(await rescuer.start()).toBe(11);
      expect(rescued.sort((a, b) => a - b)).toEqual(Array.from({ length: 11 }, (_, n) => n));
      for (const id of ids) expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'completed', attempts: 2 });
    },
  );

  it(
    'a reclaim every 250 ms at a 3 s threshold passes over the jobs waiting in a large buffer; each runs once',
    { timeout: 60_000 },
    async () => {
      // One slot and ten more claimed ahead, 400 ms a job: the last waits about 4 s, longer than
      // the threshold. One attempt each, so a buffered job the reclaim took would fail unrun.
      const hoarder = await spawnWorker('hoarder', {
        QD_CONCURRENCY: '1',
        QD_BATCH_SIZE: '11',
        QD_CLAIM_AHEAD: '10',
        QD_NAP_MS: '400',
      });
      await ctx.queue.addJobs(
        Array.from({ length: 11 }, (_, n) => ({ jobType: 'nap', payload: { n }, maxAttempts: 1 })),
      );
      await waitFor(async () => (await ctx.queue.getJobsByStatus('processing')).length === 11, {
        what: 'eleven jobs locked to the hoarder',
      });
      // Ten idle slots next to it, and twenty jobs of their own.
      const helper = await spawnWorker('helper', { QD_CONCURRENCY: '10', QD_NAP_MS: '400' });
      await ctx.queue.addJobs(
        Array.from({ length: 20 }, (_, i) => ({ jobType: 'nap', payload: { n: 11 + i }, maxAttempts: 1 })),
      );
      const supervisor = track(ctx.queue.createSupervisor({ intervalMs: 250, stuckJobsTimeoutMinutes: 0.05 }));
      supervisor.startInBackground();
      await waitFor(async () => (await ctx.queue.getJobsByStatus('completed')).length === 31, {
        timeoutMs: 30_000,
        what: '31 completed jobs',
      });
      await supervisor.stopAndDrain();
      await stopWorkers([hoarder, helper]);
      expect(await ctx.queue.getJobsByStatus('failed')).toEqual([]);
      const all = await runs();
      expect(all.map((r) => r.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 31 }, (_, n) => n));
      expect(all.filter((r) => r.n < 11).every((r) => r.worker === 'hoarder')).toBe(true);
    },
  );

  it(
    'a worker stopped with jobs claimed ahead hands them back before it exits; each runs once',
    { timeout: 60_000 },
    async () => {
      // The drain waits 300 ms: less than the buffered jobs would take to run.
      const worker = await spawnWorker('leaving', {
        QD_CONCURRENCY: '1',
        QD_BATCH_SIZE: '11',
        QD_CLAIM_AHEAD: '10',
        QD_NAP_MS: '300',
        QD_DRAIN_MS: '300',
      });
      const ids = await ctx.queue.addJobs(Array.from({ length: 11 }, (_, n) => ({ jobType: 'nap', payload: { n } })));
      await waitFor(async () => (await runCount()) >= 1, { what: 'the first job to start' });
      await stopWorkers([worker]);
      // Nothing is left to the reclaim: what did not start is pending again, at once.
      expect(await ctx.queue.getJobsByStatus('processing')).toEqual([]);
      const released = await ctx.queue.getJobsByStatus('pending');
      expect(released.length).toBeGreaterThan(0);
      expect(released.every((j) => j.pendingReason === 'released' && j.lockedBy === null)).toBe(true);
      const ranThere = (await runs()).map((r) => r.n);
      expect(ranThere.length + released.length).toBe(11);
      expect(
        await ctx.queue.createProcessor({ nap: async () => {} }, { workerId: 'next', batchSize: 20 }).start(),
      ).toBe(released.length);
      for (const id of ids) expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'completed', attempts: 1 });
    },
  );

  it(
    'keeps processing when its connections are cut, reporting what fails and losing nothing',
    { timeout: 60_000 },
    async () => {
      const applicationName = `qd_cut_${process.pid}_${Date.now()}`;
      const queue = ownedQueue(ctx, { applicationName });
      try {
        const ran = new Map<number, number>();
        const onError: Error[] = [];
        const errorEvents: Error[] = [];
        queue.on('error', (e) => errorEvents.push(e));
        const processor = track(
          queue.createProcessor(
            { count: async (p: { n: number }) => void ran.set(p.n, (ran.get(p.n) ?? 0) + 1) },
            { pollInterval: 100, concurrency: 4, onError: (e) => onError.push(e) },
          ),
        );
        // A claim whose response is lost in the cut leaves jobs locked; reclaim is the remedy.
        const supervisor = track(ctx.queue.createSupervisor({ intervalMs: 500, stuckJobsTimeoutMinutes: 0.1 }));
        processor.startInBackground();
        supervisor.startInBackground();
        await ctx.queue.addJobs(Array.from({ length: 40 }, (_, n) => ({ jobType: 'count', payload: { n } })));
        await waitFor(() => ran.size === 40, { timeoutMs: 20_000, what: 'the first 40 jobs' });

        if (ctx.backend === 'postgres') {
          // Hold a lock so the processor's next statement is in flight, then cut every connection
          // of the queue: that statement fails for certain.
          const locker = await ctx.pool.connect();
          try {
            await locker.query('BEGIN');
            await locker.query(`LOCK TABLE "${ctx.schema}".job_queue IN ACCESS EXCLUSIVE MODE`);
            const blocked = `SELECT count(*)::int AS c FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`;
            await waitFor(async () => (await ctx.sql.query(blocked, [applicationName])).rows[0].c > 0, {
              timeoutMs: 5000,
              what: 'a blocked statement',
            });
            const cut = await ctx.sql.query(
              `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`,
              [applicationName],
            );
            expect(cut.rowCount).toBeGreaterThan(0);
          } finally {
            await locker.query('ROLLBACK');
            locker.release();
          }
          await waitFor(() => onError.length > 0, { timeoutMs: 5000, what: 'the cut to be reported' });
        } else {
          // ioredis reconnects and resends unanswered commands, so a cut is usually invisible
          // to the processor: here the test asserts continuity, and that errors, if any, are
          // reported on both channels.
          if (ctx.target === 'redis-cluster') {
            // The queue's Cluster client holds a connection per master, each named applicationName.
            let cut = 0;
            for (const node of (ctx.redis as unknown as Cluster).nodes('master')) {
              const list = String(await node.client('LIST'));
              for (const [, id] of list.matchAll(new RegExp(`id=(\\d+) .*name=${applicationName} `, 'g')))
                cut += Number(await node.client('KILL', 'ID', id!));
            }
            expect(cut).toBeGreaterThan(0);
          } else {
            const id = await (queue.getRedisClient() as Redis).client('ID');
            expect(await ctx.redis.client('KILL', 'ID', String(id))).toBe(1);
          }
        }

        await ctx.queue.addJobs(Array.from({ length: 40 }, (_, i) => ({ jobType: 'count', payload: { n: 40 + i } })));
        await waitFor(() => ran.size === 80, { timeoutMs: 30_000, what: 'the 40 jobs added after the cut' });
        await waitFor(async () => (await ctx.queue.getJobsByStatus('completed')).length === 80, {
          timeoutMs: 15_000,
          what: 'all 80 jobs completed',
        });
        expect(processor.isRunning()).toBe(true);
        await Promise.all([processor.stopAndDrain(), supervisor.stopAndDrain()]);
        expect(errorEvents).toEqual(onError);
      } finally {
        await queue.close();
      }
    },
  );

  it(
    'a worker whose hung job is reclaimed gives the run up, frees the slot and reports the loss once',
    { timeout: 60_000 },
    async () => {
      const worker = await spawnWorker('jammed', { QD_CONCURRENCY: '1' });
      const id = await ctx.queue.addJob({ jobType: 'hang-once', payload: { n: 1 }, maxAttempts: 3 });
      await waitFor(async () => (await hangs()) === 1, { timeoutMs: 20_000, what: 'the handler to hang' });
      // Threshold 0: anything processing counts as stuck, and nothing else is processing here.
      expect((await ctx.queue.createSupervisor({ stuckJobsTimeoutMinutes: 0 }).start()).reclaimedJobs).toBe(1);
      // The only slot of the worker was held by the hung run: it runs the job again, then more.
      await waitFor(async () => (await ctx.queue.getJob(id))?.status === 'completed', {
        timeoutMs: 20_000,
        what: 'the reclaimed job to complete',
      });
      const more = await ctx.queue.addJobs([2, 3, 4].map((n) => ({ jobType: 'count', payload: { n } })));
      await waitFor(async () => (await runCount()) === 4, {
        timeoutMs: 20_000,
        what: 'three more jobs in the freed slot',
      });
      await stopWorkers([worker]);
      expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'completed', attempts: 2 });
      for (const other of more) expect((await ctx.queue.getJob(other))?.status).toBe('completed');
      expect((await runs()).every((r) => r.worker === 'jammed')).toBe(true);
      const seen = await notes();
      expect(seen.filter((n) => n.startsWith('aborted:'))).toEqual(['aborted:1:JOB_LOST']);
      expect(seen.filter((n) => n.startsWith('error:'))).toEqual(['error:JOB_LOST']);
    },
  );
});
