/**
 * The wake-up path of an idle processor (docs/performance.md, "Pickup"): a single added job's
 * notification carries its id, and the woken processor claims that job by id, in one statement
 * that touches only its row, with nothing between the notification and the claim. Counted on a
 * pool whose clients record every statement they send; no timing is asserted.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { initJobQueue } from '../../src/queue.js';
import { PG_URL } from '../helpers/backends.js';
import { usePostgres } from './support.js';

/** Statements sent by the processor's pool, in order. */
let sent: string[] = [];
class CountingClient extends pg.Client {
  // pg.Client.query has many overloads; the counter passes every call through unchanged.
  override query = ((...args: unknown[]) => {
    const first = args[0] as string | { text: string };
    sent.push(typeof first === 'string' ? first : first.text);
    return (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
  }) as pg.Client['query'];
}

const isFullClaim = (s: string) => s.includes('newly_due');
const isClaimById = (s: string) => s.includes('claim by id');

describe('pickup by an idle processor (postgres)', () => {
  const ctx = usePostgres();
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.end()));
  });

  /** An idle processor (its first claims done, polling far away) that records the order of its runs. */
  async function idleProcessor(
    handle: (payload: { n: number }) => void,
    options: { batchSize: number; concurrency: number } = { batchSize: 10, concurrency: 10 },
  ) {
    const pool = new pg.Pool({ connectionString: PG_URL, Client: CountingClient });
    pools.push(pool);
    const queue = initJobQueue({ backend: 'postgres', pool, schema: ctx.schema });
    let warmed!: () => void;
    const warm = new Promise<void>((resolve) => (warmed = resolve));
    const processor = queue.createProcessor(
      { job: (payload: { n: number }) => (payload.n < 0 ? warmed() : handle(payload)) },
      { ...options, pollInterval: 60_000 },
    );
    processor.startInBackground();
    // The start-up claim (and the cron check) are done once a first job has run.
    await ctx.queue().addJob({ jobType: 'job', payload: { n: -1 } });
    await warm;
    await settle();
    return { queue, processor };
  }

  /**
   * Waits until the processor is idle: every job it started is completed and its follow-up
   * claim (a job ending makes it look for work) has returned, so its pool has gone quiet.
   */
  async function settle(): Promise<void> {
    for (;;) {
      const { rows } = await ctx.sql.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${ctx.table('job_queue')} WHERE status <> 'completed' AND ready_at IS NULL`,
      );
      const count = sent.length;
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (rows[0]!.n === 0 && sent.length === count) return;
    }
  }

  it('claims a single added job by its id: one statement between the add and the handler', async () => {
    let started!: () => void;
    let handlerStart = new Promise<void>((resolve) => (started = resolve));
    const { processor } = await idleProcessor(() => started());
    for (let n = 0; n < 3; n++) {
      sent = [];
      await ctx.queue().addJob({ jobType: 'job', payload: { n } });
      await handlerStart;
      const before = [...sent];
      expect(before.filter(isClaimById)).toHaveLength(1);
      expect(before.filter(isFullClaim)).toHaveLength(0);
      // Nothing else was sent before the handler started (the completion follows it).
      expect(before.filter((s) => !/completed/.test(s) || isClaimById(s))).toHaveLength(1);
      handlerStart = new Promise<void>((resolve) => (started = resolve));
      await settle();
    }
    await processor.stopAndDrain();
  });

  it('falls back to the ordered claim when a more urgent due job waits: priorities hold', async () => {
    const ran: number[] = [];
    let both!: () => void;
    const done = new Promise<void>((resolve) => (both = resolve));
    const { processor } = await idleProcessor(
      ({ n }) => {
        ran.push(n);
        if (ran.length === 2) both();
      },
      { batchSize: 1, concurrency: 1 },
    );
    // A more urgent job reaches the due lane without a wake-up of its own (scheduled ahead,
    // then made due by a direct update), then a less urgent one is added and announced.
    const urgent = await ctx
      .queue()
      .addJob({ jobType: 'job', payload: { n: 1 }, priority: 5, runAt: new Date(Date.now() + 3_600_000) });
    await ctx.sql.query(
      `UPDATE ${ctx.table('job_queue')} SET run_at = now() - interval '1 minute', promoted_at = now() WHERE id = $1`,
      [urgent],
    );
    sent = [];
    await ctx.queue().addJob({ jobType: 'job', payload: { n: 2 } });
    await done;
    await processor.stopAndDrain();
    expect(ran).toEqual([1, 2]);
    expect(sent.filter(isFullClaim).length).toBeGreaterThanOrEqual(1);
  });
});
