/**
 * Round trips of a drain with and without claiming ahead (docs/processing.md): counted on a pool
 * whose clients count every statement they send. Without it a processor claims only for its
 * free slots, so a drain of no-op handlers claims about `concurrency` jobs per claim; with it,
 * one claim refills half the buffer.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { initJobQueue } from '../../src/queue.js';
import { PG_URL } from '../helpers/backends.js';
import { usePostgres } from './support.js';

const JOBS = 1000;

/** Statements sent, in order: one round trip each. */
let sent: string[] = [];
class CountingClient extends pg.Client {
  // pg.Client.query has many overloads; the counter passes every call through unchanged.
  override query = ((...args: unknown[]) => {
    const first = args[0] as string | { text: string };
    sent.push(typeof first === 'string' ? first : first.text);
    return (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
  }) as pg.Client['query'];
}

describe('round trips of a drain (postgres)', () => {
  const ctx = usePostgres();
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.end()));
  });

  /** Drains JOBS no-op jobs with `options`; returns the statements sent while draining. */
  async function drain(options: { batchSize: number; claimAhead?: number }): Promise<string[]> {
    await ctx.queue().addJobs(Array.from({ length: JOBS }, (_, n) => ({ jobType: 'noop', payload: { n } })));
    const pool = new pg.Pool({ connectionString: PG_URL, Client: CountingClient });
    pools.push(pool);
    const queue = initJobQueue({ backend: 'postgres', pool, schema: ctx.schema });
    let handled = 0;
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    const processor = queue.createProcessor(
      {
        noop: () => {
          if (++handled === JOBS) finished();
        },
      },
      { concurrency: 10, pollInterval: 60_000, ...options },
    );
    sent = [];
    processor.startInBackground();
    await done;
    await processor.stopAndDrain();
    const statements = sent;
    await queue.close();
    expect(await ctx.queue().getJobsByStatus('completed', JOBS + 1)).toHaveLength(JOBS);
    return statements;
  }

  const claims = (statements: string[]) => statements.filter((s) => s.includes('newly_due')).length;

  it('claims for free slots only by default: about one claim per concurrency jobs', async () => {
    const statements = await drain({ batchSize: 10 });
    expect(claims(statements)).toBeGreaterThanOrEqual(JOBS / 10);
  });

  it('with claimAhead 500 and batchSize 500, a drain of 1,000 jobs takes a handful of claims', async () => {
    const statements = await drain({ batchSize: 500, claimAhead: 500 });
    // The first claim fills the buffer, then one per half buffer used, then one that finds none.
    expect(claims(statements)).toBeLessThanOrEqual(8);
    expect(statements.length / JOBS).toBeLessThanOrEqual(0.03);
  });
});
