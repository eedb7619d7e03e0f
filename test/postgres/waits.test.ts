/**
 * Durable waits on PostgreSQL at the storage level: entering a wait racing a token's completion
 * or expiry (no lost wake-up, whichever commits first), fencing, step data, and the resume claim.
 * Interleavings are forced with row locks held by a raw transaction, so each order is exercised
 * for certain rather than by chance.
 */
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backend.js';
import { NotFoundError, ValidationError } from '../../src/errors.js';
import { backendOf } from '../../src/queue.js';
import { normalizeJob } from '../../src/validation.js';
import { usePostgres } from './support.js';
import { waitFor } from '../helpers/wait.js';
import { failOne } from '../helpers/fail.js';

const T0 = new Date('2030-01-01T00:00:00Z');
const MINUTE = 60_000;
const at = (ms: number) => new Date(T0.getTime() + ms);
const WORKER = 'w1';
const TOKEN = 'wp_00000000-0000-4000-8000-000000000001';

describe('durable waits (postgres)', () => {
  const ctx = usePostgres();
  /** Raw transactions still holding locks; a failed test must not leave them blocking the next. */
  const holding = new Set<pg.PoolClient>();

  afterEach(async () => {
    for (const client of holding) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
    holding.clear();
  });

  /** A job of its own type, claimed by WORKER at T0. */
  async function processingJob(backend: Backend, jobType: string): Promise<number> {
    const { ids } = await backend.addJobs({ jobs: [newJob(jobType)], now: T0 });
    const claimed = await backend.claimJobs({ workerId: WORKER, batchSize: 1, jobTypes: [jobType], now: T0 });
    expect(claimed.map((j) => j.id)).toEqual(ids);
    return ids[0]!;
  }

  async function row(jobId: number) {
    const { rows } = await ctx.sql.query(
      `SELECT status, attempts, locked_by, wait_until, wait_token_id, pending_reason, step_data FROM ${ctx.table('job_queue')} WHERE id = $1`,
      [jobId],
    );
    return rows[0];
  }

  async function events(jobId: number) {
    // With the events a job keeps in its row: `added` (migration 013), the attempt's
    // `processing` and `completed` (migration 018).
    const { rows } = await ctx.sql.query(
      `SELECT event_type, metadata FROM (
         SELECT id, event_type, metadata FROM ${ctx.table('job_events')} WHERE job_id = $1
         UNION ALL
         SELECT added_event_id, 'added', NULL FROM ${ctx.table('job_queue')} WHERE id = $1 AND added_event_id IS NOT NULL
         UNION ALL
         SELECT processing_event_id, 'processing', NULL FROM ${ctx.table('job_queue')}
         WHERE id = $1 AND processing_event_id IS NOT NULL
         UNION ALL
         SELECT completed_event_id, 'completed', NULL FROM ${ctx.table('job_queue')}
         WHERE id = $1 AND completed_event_id IS NOT NULL
       ) e ORDER BY id`,
      [jobId],
    );
    return rows as { event_type: string; metadata: unknown }[];
  }

  /** Locks rows of `table` matching `where` in a raw transaction, until `release`. */
  async function hold(table: 'job_queue' | 'waitpoint_tokens', where: string, values: unknown[]) {
    const client: pg.PoolClient = await ctx.sql.connect();
    holding.add(client);
    await client.query('BEGIN');
    await client.query(`SELECT 1 FROM ${ctx.table(table)} WHERE ${where} FOR UPDATE`, values);
    return {
      /** Resolves once `n` statements on this schema wait for a lock. */
      whenWaiting: (n: number) =>
        waitFor(
          async () => {
            const { rows } = await ctx.sql.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`,
              [`%"${ctx.schema}".%`],
            );
            return rows[0].n >= n;
          },
          { what: `${n} statements waiting for a lock` },
        ),
      release: async () => {
        holding.delete(client);
        await client.query('COMMIT');
        client.release();
      },
    };
  }

  it('a token completed before the wait: enterWait returns it settled and changes nothing', async () => {
    const backend = backendOf(ctx.queue());
    const jobId = await processingJob(backend, 'a');
    await backend.createToken({ id: TOKEN, jobId: null, timeoutAt: null, tags: ['t'], now: T0 });
    expect(await backend.completeToken({ tokenId: TOKEN, output: { ok: 1 }, now: at(MINUTE) })).toBe(true);

    const result = await backend.enterWait({
      jobId,
      workerId: WORKER,
      waitUntil: null,
      tokenId: TOKEN,
      now: at(2 * MINUTE),
    });
    expect(result).toEqual({
      status: 'token_settled',
      token: {
        id: TOKEN,
        jobId: null,
        status: 'completed',
        output: { ok: 1 },
        timeoutAt: null,
        createdAt: T0,
        completedAt: at(MINUTE),
        tags: ['t'],
      },
    });
    expect(await row(jobId)).toMatchObject({ status: 'processing', locked_by: WORKER, wait_token_id: null });
    expect((await events(jobId)).map((e) => e.event_type)).toEqual(['added', 'processing']);
  });

  it('a completion arriving while enterWait holds the token waits for it, then resumes the job', async () => {
    const backend = backendOf(ctx.queue());
    const jobId = await processingJob(backend, 'a');
    await backend.createToken({ id: TOKEN, jobId: null, timeoutAt: null, tags: [], now: T0 });
    // enterWait locks the token, then stops at the job row held here; the completion stops at the token.
    const held = await hold('job_queue', 'id = $1', [jobId]);
    const entering = backend.enterWait({ jobId, workerId: WORKER, waitUntil: null, tokenId: TOKEN, now: at(MINUTE) });
    await held.whenWaiting(1);
    const completing = backend.completeToken({ tokenId: TOKEN, output: 'go', now: at(2 * MINUTE) });
    await held.whenWaiting(2);
    await held.release();

    expect(await entering).toEqual({ status: 'waiting' });
    expect(await completing).toBe(true);
    expect(await row(jobId)).toMatchObject({
      status: 'pending',
      pending_reason: 'resumed',
      wait_token_id: null,
      locked_by: null,
      attempts: 1,
    });
    expect(await backend.getToken(TOKEN)).toMatchObject({ status: 'completed', jobId, output: 'go' });
    // The resume claim adds no attempt and clears the wait fields.
    const [claimed] = await backend.claimJobs({ workerId: 'w2', batchSize: 1, now: at(2 * MINUTE) });
    expect(claimed).toMatchObject({ id: jobId, attempts: 1, status: 'processing' });
    expect(await backend.getJob(jobId)).toMatchObject({
      status: 'processing',
      waitTokenId: null,
      waitUntil: null,
      pendingReason: null,
    });
  });

  it('enterWait arriving while a completion holds the token sees it completed and does not wait', async () => {
    const backend = backendOf(ctx.queue());
    const first = await processingJob(backend, 'first');
    const second = await processingJob(backend, 'second');
    await backend.createToken({ id: TOKEN, jobId: null, timeoutAt: null, tags: [], now: T0 });
    expect(
      await backend.enterWait({ jobId: first, workerId: WORKER, waitUntil: null, tokenId: TOKEN, now: T0 }),
    ).toEqual({ status: 'waiting' });
    // The completion settles the token, then stops at the first job's row held here while
    // resuming it; the second job's wait stops at the token.
    const held = await hold('job_queue', 'id = $1', [first]);
    const completing = backend.completeToken({ tokenId: TOKEN, output: 42, now: at(MINUTE) });
    await held.whenWaiting(1);
    const entering = backend.enterWait({
      jobId: second,
      workerId: WORKER,
      waitUntil: null,
      tokenId: TOKEN,
      now: at(MINUTE),
    });
    await held.whenWaiting(2);
    await held.release();

    expect(await completing).toBe(true);
    expect(await entering).toMatchObject({
      status: 'token_settled',
      token: { status: 'completed', output: 42, jobId: first },
    });
    expect(await row(first)).toMatchObject({ status: 'pending', pending_reason: 'resumed' });
    expect(await row(second)).toMatchObject({ status: 'processing', locked_by: WORKER, wait_token_id: null });
  });

  it('never loses a wake-up when enterWait and completeToken race freely', async () => {
    const backend = backendOf(ctx.queue());
    const other = backendOf(ctx.queue());
    for (let round = 0; round < 15; round++) {
      const jobId = await processingJob(backend, `race${round}`);
      const tokenId = `wp_00000000-0000-4000-8000-${String(round).padStart(12, '0')}`;
      await backend.createToken({ id: tokenId, jobId: null, timeoutAt: null, tags: [], now: T0 });
      const [entered] = await Promise.all([
        backend.enterWait({ jobId, workerId: WORKER, waitUntil: null, tokenId, now: T0 }),
        other.completeToken({ tokenId, output: round, now: T0 }),
      ]);
      const job = await row(jobId);
      if (entered.status === 'waiting')
        expect(job, `round ${round}`).toMatchObject({ status: 'pending', pending_reason: 'resumed' });
      else expect([entered.status, job.status], `round ${round}`).toEqual(['token_settled', 'processing']);
    }
  });

  it('expiry skips a token a wait is holding, and expires it (resuming the job) on the next run', async () => {
    const backend = backendOf(ctx.queue());
    const jobId = await processingJob(backend, 'a');
    await backend.createToken({ id: TOKEN, jobId: null, timeoutAt: at(MINUTE), tags: [], now: T0 });
    const held = await hold('job_queue', 'id = $1', [jobId]);
    const entering = backend.enterWait({ jobId, workerId: WORKER, waitUntil: null, tokenId: TOKEN, now: T0 });
    await held.whenWaiting(1);
    expect(await backend.expireTimedOutTokens(at(MINUTE))).toBe(0);
    await held.release();
    expect(await entering).toEqual({ status: 'waiting' });

    expect(await backend.expireTimedOutTokens(at(MINUTE - 1))).toBe(0);
    expect(await backend.expireTimedOutTokens(at(MINUTE))).toBe(1);
    expect(await backend.getToken(TOKEN)).toMatchObject({ status: 'timed_out', completedAt: at(MINUTE), jobId });
    expect(await row(jobId)).toMatchObject({ status: 'pending', pending_reason: 'resumed', wait_token_id: null });
    expect(await backend.expireTimedOutTokens(at(2 * MINUTE))).toBe(0);
  });

  it('enterWait is fenced: another worker gets `lost` and nothing changes; an unknown token is NotFoundError', async () => {
    const backend = backendOf(ctx.queue());
    const jobId = await processingJob(backend, 'a');
    await backend.createToken({ id: TOKEN, jobId: null, timeoutAt: null, tags: [], now: T0 });
    const unknown = 'wp_00000000-0000-4000-8000-00000000ffff';
    for (const input of [
      { waitUntil: at(MINUTE), tokenId: null },
      { waitUntil: null, tokenId: TOKEN },
      { waitUntil: null, tokenId: unknown },
    ]) {
      expect(
        await backend.enterWait({ jobId, workerId: 'stale', ...input, step: { name: 's', value: 1 }, now: T0 }),
      ).toEqual({ status: 'lost' });
    }
    expect(await row(jobId)).toMatchObject({
      status: 'processing',
      locked_by: WORKER,
      wait_until: null,
      step_data: null,
    });
    expect((await backend.getToken(TOKEN))?.jobId).toBeNull();
    await expect(
      backend.enterWait({ jobId, workerId: WORKER, waitUntil: null, tokenId: unknown, now: T0 }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect((await events(jobId)).map((e) => e.event_type)).toEqual(['added', 'processing']);
  });

  it('a timed wait: waiting with wait_until and its step, lock cleared, attempts kept; resumes when due without an attempt', async () => {
    const backend = backendOf(ctx.queue());
    const jobId = await processingJob(backend, 'a');
    expect(await backend.saveStep({ jobId, workerId: WORKER, stepName: 'one', value: { n: 1 }, now: T0 })).toBe(true);
    const result = await backend.enterWait({
      jobId,
      workerId: WORKER,
      waitUntil: at(5 * MINUTE),
      tokenId: null,
      step: { name: '__wait:0', value: { until: at(5 * MINUTE).toISOString() } },
      now: T0,
    });
    expect(result).toEqual({ status: 'waiting' });
    expect(await row(jobId)).toEqual({
      status: 'waiting',
      attempts: 1,
      locked_by: null,
      wait_until: at(5 * MINUTE),
      wait_token_id: null,
      pending_reason: null,
      step_data: { one: { n: 1 }, '__wait:0': { until: at(5 * MINUTE).toISOString() } },
    });
    expect((await events(jobId)).at(-1)).toEqual({
      event_type: 'waiting',
      metadata: { waitUntil: at(5 * MINUTE).toISOString(), tokenId: null },
    });

    expect(await backend.claimJobs({ workerId: 'w2', batchSize: 5, now: at(5 * MINUTE - 1) })).toEqual([]);
    const [claimed] = await backend.claimJobs({ workerId: 'w2', batchSize: 5, now: at(5 * MINUTE) });
    expect(claimed).toMatchObject({ id: jobId, attempts: 1, stepData: { one: { n: 1 } } });
    expect((await backend.getJob(jobId))?.waitUntil).toBeNull();
  });

  it('saveStep merges one step, fenced; a retry keeps step data and completion clears it', async () => {
    const backend = backendOf(ctx.queue());
    const jobId = await processingJob(backend, 'a');
    expect(await backend.saveStep({ jobId, workerId: WORKER, stepName: 'a', value: [1, 'x'], now: T0 })).toBe(true);
    expect(await backend.saveStep({ jobId, workerId: WORKER, stepName: 'b', value: null, now: T0 })).toBe(true);
    expect(await backend.saveStep({ jobId, workerId: WORKER, stepName: 'a', value: 2, now: T0 })).toBe(true);
    expect(await backend.saveStep({ jobId, workerId: 'stale', stepName: 'c', value: 3, now: T0 })).toBe(false);
    expect((await row(jobId)).step_data).toEqual({ a: 2, b: null });

    await failOne(backend, {
      jobId,
      workerId: WORKER,
      message: 'boom',
      reason: 'handler_error',
      retryAt: at(MINUTE),
      now: T0,
    });
    expect((await backend.getJob(jobId))?.stepData).toEqual({ a: 2, b: null });
    await backend.claimJobs({ workerId: WORKER, batchSize: 1, now: at(MINUTE) });
    expect(await backend.completeJobs([{ jobId, workerId: WORKER }], at(MINUTE))).toEqual([jobId]);
    expect((await backend.getJob(jobId))?.stepData).toBeNull();
  });

  it('createToken refuses a taken id and writes nothing', async () => {
    const backend = backendOf(ctx.queue());
    await backend.createToken({ id: TOKEN, jobId: null, timeoutAt: null, tags: ['first'], now: T0 });
    await expect(
      backend.createToken({ id: TOKEN, jobId: 7, timeoutAt: at(MINUTE), tags: [], now: at(MINUTE) }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(await backend.getToken(TOKEN)).toMatchObject({
      jobId: null,
      timeoutAt: null,
      tags: ['first'],
      createdAt: T0,
    });
  });
});

/** A job with every default, through the same normalization as addJob. */
function newJob(jobType: string) {
  return normalizeJob('', { jobType, payload: {} }, T0);
}
