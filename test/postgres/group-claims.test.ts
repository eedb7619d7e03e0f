/**
 * groupConcurrency under concurrent claimers (DETAILS "Group limits and concurrency"): several
 * queues, each on its own pool (as separate processes would be), claim at the same instant; the
 * number of processing jobs of a group never exceeds the limit, and free slots are filled.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { backendOf, type JobQueue } from '../../src/queue.js';
import { PG_URL } from '../helpers/backends.js';
import { usePostgres } from './support.js';

describe('group limits with concurrent claimers (postgres)', () => {
  const ctx = usePostgres();
  let pools: pg.Pool[] = [];

  afterEach(async () => {
    await Promise.all(pools.map((p) => p.end()));
    pools = [];
  });

  function claimers(n: number): JobQueue[] {
    return Array.from({ length: n }, () => {
      const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
      pools.push(pool);
      return ctx.queue({ pool });
    });
  }

  async function processingByGroup(): Promise<Map<string | null, number>> {
    const { rows } = await ctx.sql.query(
      `SELECT group_id, count(*)::int AS n FROM ${ctx.table('job_queue')} WHERE status = 'processing' GROUP BY group_id`,
    );
    return new Map(rows.map((r) => [r.group_id, r.n]));
  }

  it('never lets more than groupConcurrency jobs of a group run, across 6 simultaneous claimers', async () => {
    const LIMIT = 2;
    const GROUPS = ['a', 'b', 'c'];
    const queues = claimers(6);
    await ctx
      .queue()
      .addJobs([
        ...GROUPS.flatMap((g) =>
          Array.from({ length: 30 }, (_, i) => ({ jobType: 'work', payload: { g, i }, group: { id: g } })),
        ),
        ...Array.from({ length: 10 }, (_, i) => ({ jobType: 'work', payload: { i } })),
      ]);

    for (let round = 0; round < 5; round++) {
      const now = new Date();
      const batches = await Promise.all(
        queues.map((q, w) => backendOf(q).claimJobs({ workerId: `w${w}`, batchSize: 4, groupConcurrency: LIMIT, now })),
      );
      const counts = await processingByGroup();
      for (const g of GROUPS) {
        // Full, never over.
        expect(counts.get(g), `round ${round}, group ${g}`).toBe(LIMIT);
      }
      // Every claim took only jobs nobody else took.
      const claimedIds = batches.flat().map((j) => j.id);
      expect(new Set(claimedIds).size).toBe(claimedIds.length);

      // Finish one job of each group: each group gets exactly one slot back.
      const finished = GROUPS.map((g) => batches.flat().find((j) => j.group?.id === g));
      const done = await backendOf(ctx.queue()).completeJobs(
        finished.filter((j) => j !== undefined).map((j) => ({ jobId: j.id, workerId: j.lockedBy! })),
        new Date(),
      );
      // A group claimed in an earlier round may have no job in this round's batches.
      if (done.length < GROUPS.length) {
        const { rows } = await ctx.sql.query(
          `SELECT DISTINCT ON (group_id) id, locked_by FROM ${ctx.table('job_queue')}
           WHERE status = 'processing' AND group_id = ANY($1) ORDER BY group_id, id`,
          [GROUPS.filter((g) => !finished.some((j) => j?.group?.id === g))],
        );
        await backendOf(ctx.queue()).completeJobs(
          rows.map((r) => ({ jobId: Number(r.id), workerId: r.locked_by })),
          new Date(),
        );
      }
    }
    // Ungrouped jobs were not limited: all 10 were claimed in the first round already.
    expect((await processingByGroup()).get(null)).toBe(10);
  });
});
