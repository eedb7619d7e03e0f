/**
 * What adding a plain job (type and payload, every option at its default) costs the store,
 * measured on the statement the queue really sends: the input it ships, the job rows it reads,
 * and the WAL records it writes, which count the heap rows and index entries. Deterministic
 * counts, not timings.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PG_URL } from '../helpers/backends.js';
import { usePostgres } from './support.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'WAL Records'?: number;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/** A pool whose clients record every parameterized statement they send. */
function recordingPool(sent: { text: string; values: unknown[] }[]): pg.Pool {
  class RecordingClient extends pg.Client {
    override query = ((...args: unknown[]) => {
      const first = args[0] as { text?: string; values?: unknown[] } | string;
      if (typeof first === 'object' && first.text && first.values)
        sent.push({ text: first.text, values: first.values });
      else if (typeof first === 'string' && Array.isArray(args[1])) sent.push({ text: first, values: args[1] });
      return (pg.Client.prototype.query as (...a: unknown[]) => unknown).apply(this, args);
    }) as pg.Client['query'];
  }
  return new pg.Pool({ connectionString: PG_URL, Client: RecordingClient, max: 2 });
}

describe('the cost of adding plain jobs (postgres)', () => {
  const ctx = usePostgres();
  const JOBS = 500;

  /** Adds JOBS plain jobs in one addJobs call; returns the statement and values it sent. */
  async function addPlainBatch(): Promise<{ text: string; values: unknown[] }> {
    const sent: { text: string; values: unknown[] }[] = [];
    const pool = recordingPool(sent);
    try {
      const queue = ctx.queue({ pool });
      await queue.addJobs(Array.from({ length: JOBS }, (_, i) => ({ jobType: 'plain', payload: { i } })));
      await queue.close();
    } finally {
      await pool.end();
    }
    const adds = sent.filter((s) => s.text.includes('INSERT INTO'));
    expect(adds).toHaveLength(1);
    return adds[0]!;
  }

  it('ships each plain job as its type and payload only', async () => {
    const { values } = await addPlainBatch();
    const rows = JSON.parse(values[0] as string) as Record<string, unknown>[];
    expect(rows).toHaveLength(JOBS);
    rows.forEach((row, i) => expect(row).toEqual({ job_type: 'plain', payload: { i } }));
    // What PostgreSQL parses per job: the type, the payload and two keys (all options: ~350).
    expect((values[0] as string).length / JOBS).toBeLessThan(60);
  });

  it('reads no job row, and writes at most 6.5 WAL records per job (its row and its index entries, no event row)', async () => {
    const { text, values } = await addPlainBatch();
    const client = await ctx.sql.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query(`EXPLAIN (ANALYZE, WAL, BUFFERS, FORMAT JSON) ${text}`, values);
      await client.query('ROLLBACK');
      const plan = rows[0]['QUERY PLAN'][0].Plan as PlanNode;
      const all = nodes(plan);
      // No idempotency key and no prerequisite: nothing to look up in job_queue.
      expect(all.filter((n) => n['Node Type'].includes('Scan') && n['Relation Name'] === 'job_queue')).toEqual([]);
      const inserts = all.filter((n) => n['Node Type'] === 'ModifyTable');
      expect(inserts.map((n) => n['Relation Name']).sort()).toEqual(['job_events', 'job_queue']);
      // One record per heap row and per index entry: the job row and its five entries (primary
      // key, status, type, the two due-lane indexes), plus a few for page splits and the id
      // sequences. Its `added` event is no row of job_events since migration 013 (before: the
      // event row and its two entries, primary key (job_id, id) and created_at, three before
      // migration 004; 9.1 records per job in all), nor an entry of an index for its cleanup
      // since migration 014 (7.1 records per job with it). A job without tags adds nothing to
      // the two GIN indexes of tags (it added an entry to each before migration 004).
      const jobRecords = inserts.find((n) => n['Relation Name'] === 'job_queue')!['WAL Records']!;
      const eventRecords = inserts.find((n) => n['Relation Name'] === 'job_events')!['WAL Records'] ?? 0;
      expect(jobRecords / JOBS).toBeLessThan(6.5);
      expect(eventRecords).toBe(0);
      expect(plan['WAL Records']! / JOBS).toBeLessThan(6.5);
    } finally {
      client.release();
    }
  });

  it('appends each new job to the listing indexes: they stay about full, not half empty', async () => {
    const queue = ctx.queue();
    try {
      for (let b = 0; b < 5; b++) {
        await queue.addJobs(Array.from({ length: 1000 }, (_, i) => ({ jobType: 'plain', payload: { i } })));
      }
    } finally {
      await queue.close();
    }
    const { rows } = await ctx.sql.query(
      `SELECT c.relname, pg_relation_size(c.oid) AS bytes FROM pg_class c
       WHERE c.relnamespace = $1::regnamespace AND c.relname IN ('job_queue_status_idx', 'job_queue_job_type_idx')`,
      [ctx.schema],
    );
    expect(rows).toHaveLength(2);
    // An entry (a short text, an id) takes about 28 bytes with its line pointer. Built on `id
    // DESC` (before migration 010), each new job went to the front of its status or type, and
    // page splits left pages half full: about 58 bytes per job.
    for (const r of rows) expect(Number(r.bytes) / 5000, r.relname as string).toBeLessThan(40);
  });

  it('stores no metadata in the added event of a job without tags or key, and reads it back whole', async () => {
    const queue = ctx.queue();
    try {
      const [plain, tagged, keyed] = await queue.addJobs([
        { jobType: 'plain', payload: {} },
        { jobType: 'tagged', payload: {}, tags: ['t'] },
        { jobType: 'keyed', payload: {}, idempotencyKey: 'k' },
      ]);
      const { rows } = await ctx.sql.query(
        `SELECT job_id, metadata FROM ${ctx.table('job_events')} WHERE event_type = 'added' ORDER BY job_id`,
      );
      expect(rows.map((r) => [Number(r.job_id), r.metadata])).toEqual([
        [plain, null],
        [tagged, { jobType: 'tagged', tags: ['t'], idempotencyKey: null }],
        [keyed, { jobType: 'keyed', tags: [], idempotencyKey: 'k' }],
      ]);
      expect((await queue.getJobEvents(plain!)).map((e) => e.metadata)).toEqual([
        { jobType: 'plain', tags: [], idempotencyKey: null },
      ]);
    } finally {
      await queue.close();
    }
  });

  it('adds a single job with its options as parameters, one statement, storing what a batch stores', async () => {
    const options = {
      payload: { a: [1, 'x'] },
      maxAttempts: 5,
      priority: 7,
      runAt: new Date('2031-02-03T04:05:06.789Z'),
      timeoutMs: 1500,
      forceKillOnTimeout: true,
      tags: ['x', 'y'],
      retryDelay: 2,
      retryBackoff: false,
      retryDelayMax: 30,
      deadLetterJobType: 'dead',
      group: { id: 'g', tier: 'gold' },
      dependsOn: { tags: ['other'] },
    };
    const sent: { text: string; values: unknown[] }[] = [];
    const pool = recordingPool(sent);
    let alone: number, inBatch: number, plain: number;
    try {
      const queue = ctx.queue({ pool });
      alone = await queue.addJob({ jobType: 'full', ...options });
      plain = await queue.addJob({ jobType: 'plain', payload: null });
      [inBatch] = (await queue.addJobs([
        { jobType: 'full', ...options },
        { jobType: 'plain', payload: null },
      ])) as [number, number];
      await queue.close();
    } finally {
      await pool.end();
    }
    const adds = sent.filter((s) => s.text.includes('INSERT INTO'));
    expect(adds).toHaveLength(3);
    expect(adds.slice(0, 2).map((a) => a.text.includes('jsonb_to_recordset'))).toEqual([false, false]);
    // Every column but the id and the times of the add (run_at and ready_at are those times
    // for a job without runAt); of the id of an `added` event kept in the row, whether it is
    // there (for a job without tags).
    const row = async (id: number) => {
      const { rows } = await ctx.sql.query(
        `SELECT *, run_at = created_at AS run_now, ready_at = created_at AS ready_now
         FROM ${ctx.table('job_queue')} WHERE id = $1`,
        [id],
      );
      const skipped = new Set(['id', 'created_at', 'updated_at']);
      const r: Record<string, unknown> = Object.fromEntries(
        Object.entries(rows[0] as object).filter(([column]) => !skipped.has(column)),
      );
      const kept: Record<string, unknown> = { ...r, added_event_id: r.added_event_id !== null };
      return r.run_now ? { ...kept, run_at: 'now', ready_at: r.ready_now } : kept;
    };
    expect(await row(alone)).toEqual(await row(inBatch));
    expect(await row(plain)).toEqual(await row(inBatch + 1));
    expect((await row(plain)).payload).toBeNull();
    expect([(await row(alone)).added_event_id, (await row(plain)).added_event_id]).toEqual([false, true]);
    const events = async (id: number) => (await ctx.queue().getJobEvents(id)).map((e) => [e.eventType, e.metadata]);
    expect(await events(alone)).toEqual(await events(inBatch));
    expect(await events(plain)).toEqual(await events(inBatch + 1));
  });

  it('answers a batch with one row holding every id, not a row per job', async () => {
    const { text, values } = await addPlainBatch();
    const client = await ctx.sql.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query(text, values);
      await client.query('ROLLBACK');
      expect(rows).toHaveLength(1);
      const ids = (rows[0].ids as string).split(',').map(Number);
      expect(ids).toHaveLength(JOBS);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    } finally {
      client.release();
    }
  });
});
