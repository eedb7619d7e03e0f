/**
 * A processor's claim is planned once per connection, not on every call: after its first
 * executions the prepared claim statement runs a generic plan (PostgreSQL's plan cache keeps it
 * when it costs no more than the custom plans). Since the due lane is read by a function
 * (migration 008), the group checks' subqueries, costed for each row the function may return,
 * made the generic plan look dearer, so every claim was planned again (about a millisecond
 * each): the statement for claims without a group limit has no group checks. The statement with
 * them, for claims under a group limit, is told to keep its generic plan from the first claim.
 * Counted with pg_prepared_statements on a pool of one connection, claiming 10 at a time from
 * 2,000 jobs.
 *
 * The same holds inside the functions the claim and the completion call (the lanes' reads and the
 * dependents hint, migrations 008 and 016): each keeps its generic plan, where PostgreSQL's plan
 * cache would plan every call for its values. Seen with auto_explain, which logs the plan of each
 * query a function runs: a generic plan shows the function's parameters as `$n`, a plan for the
 * values shows the values.
 */
import pg from 'pg';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { backendOf, initJobQueue } from '../../src/queue.js';
import { PG_URL } from '../helpers/backends.js';
import { usePostgres } from './support.js';
import { failOne } from '../helpers/fail.js';

const CLAIMS = 12;
const JOBS = 2_000;

describe('plans of the claim statement (postgres)', () => {
  const ctx = usePostgres();
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.end()));
  });

  /**
   * A pool of one connection that logs, as notices gathered in `logged`, every statement it runs
   * and every query the functions it calls run, each with its plan (auto_explain).
   */
  async function explainedPool(): Promise<{ pool: pg.Pool; logged: string[] }> {
    const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
    pools.push(pool);
    const logged: string[] = [];
    const client = await pool.connect();
    client.on('notice', (notice) => logged.push(notice.message ?? ''));
    await client.query(
      `LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on;
       SET auto_explain.log_level = notice`,
    );
    client.release();
    return { pool, logged };
  }

  it('runs a generic plan once warm, without a group limit', async () => {
    await ctx.queue().addJobs(Array.from({ length: JOBS }, (_, n) => ({ jobType: 'noop', payload: { n } })));
    const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
    pools.push(pool);
    const queue = initJobQueue({ backend: 'postgres', pool, schema: ctx.schema });
    const backend = backendOf(queue);
    for (let i = 0; i < CLAIMS; i++) {
      expect(await backend.claimJobs({ workerId: 'w', batchSize: 10, now: new Date() })).toHaveLength(10);
    }
    const { rows } = await pool.query<{ generic_plans: string; custom_plans: string }>(
      `SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%newly_due%'`,
    );
    await queue.close();
    expect(rows).toHaveLength(1);
    // PostgreSQL plans the first five executions for their values, then compares.
    expect(Number(rows[0]!.custom_plans)).toBeLessThanOrEqual(5);
    expect(Number(rows[0]!.generic_plans)).toBeGreaterThanOrEqual(CLAIMS - 5);
  });

  it('runs one generic plan per connection, with a group limit', async () => {
    await ctx
      .queue()
      .addJobs(
        Array.from({ length: JOBS }, (_, n) => ({ jobType: 'noop', payload: { n }, group: { id: `g${n % 100}` } })),
      );
    const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
    pools.push(pool);
    const queue = initJobQueue({ backend: 'postgres', pool, schema: ctx.schema });
    const backend = backendOf(queue);
    for (let i = 0; i < CLAIMS; i++) {
      const jobs = await backend.claimJobs({ workerId: 'w', batchSize: 10, groupConcurrency: 2, now: new Date() });
      expect(jobs).toHaveLength(10);
    }
    const { rows } = await pool.query<{ generic_plans: string; custom_plans: string }>(
      `SELECT generic_plans, custom_plans FROM pg_prepared_statements
       WHERE statement LIKE '%newly_due%' AND statement LIKE '%j.group_id IS NOT NULL AND%'`,
    );
    await queue.close();
    expect(rows).toHaveLength(1);
    // Planned for no claim's values: one generic plan, kept from the first claim.
    expect(Number(rows[0]!.custom_plans)).toBe(0);
    expect(Number(rows[0]!.generic_plans)).toBe(CLAIMS);
  });

  it("prepares a handler's writes and a final failure, so a connection plans each once", async () => {
    await ctx.queue().addJobs(Array.from({ length: 4 }, (_, n) => ({ jobType: 'noop', payload: { n } })));
    const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
    pools.push(pool);
    const queue = initJobQueue({ backend: 'postgres', pool, schema: ctx.schema });
    const backend = backendOf(queue);
    const jobs = await backend.claimJobs({ workerId: 'w', batchSize: 4, now: new Date() });
    expect(jobs).toHaveLength(4);
    for (const { id: jobId } of jobs) {
      const now = new Date();
      expect(await backend.prolongJob({ jobId, workerId: 'w', timeoutMs: 1_000, now })).toBe(true);
      expect(await backend.setProgress({ jobId, workerId: 'w', progress: 50, now })).toBe(true);
      expect(await backend.setOutput({ jobId, workerId: 'w', output: { n: jobId }, now })).toBe(true);
      const failed = await failOne(backend, {
        jobId,
        workerId: 'w',
        message: 'm',
        reason: 'handler_error',
        retryAt: null,
        now,
      });
      expect(failed).toMatchObject({ deadLetterJobId: null, cascaded: [] });
    }
    const { rows } = await pool.query<{ statement: string; runs: string }>(
      `SELECT statement, (generic_plans + custom_plans)::text AS runs FROM pg_prepared_statements`,
    );
    await queue.close();
    const runsOf = (fragment: string) => rows.filter((r) => r.statement.includes(fragment)).map((r) => Number(r.runs));
    // One prepared statement each, run once per job.
    expect(runsOf('WITH prolonged AS')).toEqual([4]);
    expect(runsOf('SET progress = $3')).toEqual([4]);
    expect(runsOf('SET output = $3::jsonb')).toEqual([4]);
    expect(runsOf("SELECT 'failed' AS kind, id, dl_id FROM failed")).toEqual([4]);
    // Whether the failure cascades is asked once per job, prepared (migration 017).
    expect(runsOf('job_queue_has_live_dependents($1::bigint[])')).toEqual([4]);
  });

  it('runs the cascade of a final failure only when a job depends on the failed one', async () => {
    const queue0 = ctx.queue();
    const [lone1, lone2, parent, tagged] = await queue0.addJobs([
      { jobType: 'noop', payload: {} },
      { jobType: 'noop', payload: {} },
      { jobType: 'noop', payload: {} },
      { jobType: 'noop', payload: {}, tags: ['barrier'] },
    ]);
    const byId = await queue0.addJob({ jobType: 'child', payload: {}, dependsOn: { jobIds: [parent!] } });
    const byTag = await queue0.addJob({ jobType: 'child', payload: {}, dependsOn: { tags: ['barrier'] } });
    const { pool, logged: statements } = await explainedPool();
    const queue = initJobQueue({ backend: 'postgres', pool, schema: ctx.schema });
    const backend = backendOf(queue);
    const claimed = await backend.claimJobs({ workerId: 'w', batchSize: 10, jobTypes: ['noop'], now: new Date() });
    expect(claimed.map((j) => j.id).sort((a, b) => a - b)).toEqual([lone1, lone2, parent, tagged]);
    const fail = (jobId: number) =>
      failOne(backend, { jobId, workerId: 'w', message: 'm', reason: 'handler_error', retryAt: null, now: new Date() });
    /** Statements that ran one level of the cascade, since the last call. */
    const cascades = () => statements.splice(0).filter((s) => s.includes('tag_sets AS MATERIALIZED')).length;

    expect(await fail(lone1!)).toEqual({ deadLetterJobId: null, cascaded: [] });
    expect(await fail(lone2!)).toEqual({ deadLetterJobId: null, cascaded: [] });
    expect(cascades()).toBe(0);
    // A level that cancels a job, then the hint says the next level has nothing to do.
    expect(await fail(parent!)).toEqual({ deadLetterJobId: null, cascaded: [{ jobId: byId, cascadeFrom: parent }] });
    expect(cascades()).toBe(1);
    expect(await fail(tagged!)).toEqual({ deadLetterJobId: null, cascaded: [{ jobId: byTag, cascadeFrom: tagged }] });
    expect(cascades()).toBe(1);
    await queue.close();
    expect((await queue0.getJob(byId))?.status).toBe('cancelled');
    expect((await queue0.getJob(byTag))?.status).toBe('cancelled');
  });

  it('runs one plan per connection inside the lanes and the dependents hint', async () => {
    await ctx.queue().addJobs(Array.from({ length: JOBS }, (_, n) => ({ jobType: 'noop', payload: { n } })));
    // Statistics that autovacuum gathered during the claims would replace the generic plans with
    // new ones, of another estimate (seen under load): none are gathered during this test.
    await ctx.sql.query(`ALTER TABLE "${ctx.schema}".job_queue SET (autovacuum_enabled = false)`);
    onTestFinished(async () => {
      await ctx.sql.query(`ALTER TABLE "${ctx.schema}".job_queue RESET (autovacuum_enabled)`);
    });
    const { pool, logged: plans } = await explainedPool();
    const queue = initJobQueue({ backend: 'postgres', pool, schema: ctx.schema });
    const backend = backendOf(queue);
    for (let i = 0; i < CLAIMS; i++) {
      // Two sizes, so two windows: a plan made for the values would differ between them.
      const batchSize = i % 2 === 0 ? 10 : 20;
      const jobs = await backend.claimJobs({ workerId: 'w', batchSize, now: new Date() });
      expect(jobs).toHaveLength(batchSize);
      const completions = jobs.map((job) => ({ jobId: job.id, workerId: 'w' }));
      expect(await backend.completeJobs(completions, new Date())).toHaveLength(batchSize);
    }
    await queue.close();

    const of = (query: string) => plans.filter((p) => p.includes(query));
    // The due lane's head: the LIMIT is the window, so a plan for the values estimates the window's
    // rows; the generic plan one estimate for every window.
    const heads = of('LIMIT p_limit');
    expect(heads).toHaveLength(CLAIMS);
    const limitRows = heads.map((p) => /Limit {2}\(cost=[\d.]+ rows=(\d+)/.exec(p)?.[1]);
    expect(limitRows).not.toContain(undefined);
    // Plans for the values would change their estimate with every claim, as the window
    // alternates. A generic plan keeps one; it is made again only when the connection's plan
    // cache is reset (catalog changes elsewhere in a busy database can overflow the server's
    // invalidation queue), with the table's size of then: at most twice in this test.
    const changes = limitRows.filter((rows, i) => i > 0 && rows !== limitRows[i - 1]).length;
    expect(changes).toBeLessThanOrEqual(2);
    // The scheduled lane up to now, and the completion's hint: the time bound and the arrays are `$n`.
    const becameDue = of('j.ready_at <= p_now');
    expect(becameDue).toHaveLength(CLAIMS);
    for (const plan of becameDue) expect(plan).toMatch(/ready_at <= \$1\)/);
    const hints = of('d.depends_on_job_ids && p_ids');
    expect(hints).toHaveLength(CLAIMS);
    for (const plan of hints) expect(plan).toMatch(/depends_on_job_ids && \$1\)/);
  });
});
