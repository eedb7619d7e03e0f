/**
 * The `added` event a plain add keeps in its job's row (migration 013): the add writes no row of
 * job_events, the history reads the event in its place, and the cleanup removes old ones by
 * raising a floor of job ids (migration 014), reading the jobs and writing none of them.
 */
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { backendOf } from '../../src/queue.js';
import { ManualClock } from '../helpers/backends.js';
import { usePostgres } from './support.js';

const T0 = new Date('2030-06-01T12:00:00.000Z');
const DAY = 86_400_000;

describe('the added event kept in the job row (postgres)', () => {
  const ctx = usePostgres();

  const storedEvents = async (jobId: number) =>
    (
      await ctx.sql.query(`SELECT event_type FROM ${ctx.table('job_events')} WHERE job_id = $1 ORDER BY id`, [jobId])
    ).rows.map((r) => r.event_type as string);

  it('keeps the event of a plain job in its row, and of a tagged or keyed one in job_events', async () => {
    const queue = ctx.queue();
    const plain = await queue.addJob({ jobType: 'a', payload: {} });
    const [batched] = await queue.addJobs([{ jobType: 'a', payload: {} }]);
    const tagged = await queue.addJob({ jobType: 'a', payload: {}, tags: ['t'] });
    const keyed = await queue.addJob({ jobType: 'a', payload: {}, idempotencyKey: 'k' });
    for (const id of [plain, batched!]) expect(await storedEvents(id)).toEqual([]);
    for (const id of [tagged, keyed]) expect(await storedEvents(id)).toEqual(['added']);
    for (const id of [plain, batched!, tagged, keyed]) {
      const [added] = await queue.getJobEvents(id);
      expect(added).toMatchObject({ jobId: id, eventType: 'added' });
    }
    // The in-row event orders before the events written after it.
    await queue.editJob(plain, { priority: 2 });
    await queue.cancelJob(plain);
    const history = await queue.getJobEvents(plain);
    expect(history.map((e) => e.eventType)).toEqual(['added', 'edited', 'cancelled']);
    expect(history.map((e) => e.id)).toEqual([...history.map((e) => e.id)].sort((a, b) => a - b));
  });

  it('adds a single job through each of its four statements (with or without tags, with or without a trace)', async () => {
    const tracerProvider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
    });
    try {
      for (const queue of [ctx.queue(), ctx.queue({ telemetry: { tracerProvider } })]) {
        const plain = await queue.addJob({ jobType: 'a', payload: { n: 1 } });
        const tagged = await queue.addJob({ jobType: 'a', payload: { n: 2 }, tags: ['t'] });
        expect(await storedEvents(plain)).toEqual([]);
        expect(await storedEvents(tagged)).toEqual(['added']);
        expect((await queue.getJobEvents(tagged))[0]!.metadata).toEqual({
          jobType: 'a',
          tags: ['t'],
          idempotencyKey: null,
        });
        expect((await queue.getJobEvents(plain))[0]!.metadata).toEqual({
          jobType: 'a',
          tags: [],
          idempotencyKey: null,
        });
      }
      const { rows } = await ctx.sql.query(
        `SELECT count(*)::int AS n FROM ${ctx.table('job_queue')} WHERE trace_context IS NOT NULL`,
      );
      expect(rows[0].n).toBe(2);
    } finally {
      await tracerProvider.shutdown();
    }
  });

  it('removes old in-row events by raising a floor: no job row is locked, waited for or written', async () => {
    const clock = new ManualClock(T0);
    const queue = ctx.queue({ clock });
    const [held, free] = (await queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'a', payload: {} },
    ])) as [number, number];
    const tagged = await queue.addJob({ jobType: 'a', payload: {}, tags: ['t'] });
    clock.set(new Date(T0.getTime() + 2 * DAY));
    const recent = await queue.addJob({ jobType: 'a', payload: {} });
    const versions = async () =>
      (await ctx.sql.query(`SELECT id::int, xmin::text FROM ${ctx.table('job_queue')} ORDER BY id`)).rows as {
        id: number;
        xmin: string;
      }[];
    const before = await versions();

    const client = await ctx.sql.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT 1 FROM ${ctx.table('job_queue')} WHERE id = $1 FOR UPDATE`, [held]);
      // Returns at once while `held` is locked: its event, the free job's (both kept in rows)
      // and the tagged job's (a row of job_events) are removed, in batches of one.
      const removed = await backendOf(queue).cleanupOldJobEvents({
        olderThan: new Date(T0.getTime() + DAY),
        batchSize: 1,
      });
      expect(removed).toBe(3);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    for (const id of [held, free, tagged]) expect(await queue.getJobEvents(id)).toEqual([]);
    expect((await queue.getJobEvents(recent)).map((e) => e.eventType)).toEqual(['added']);
    // No job row got a new version.
    expect(await versions()).toEqual(before);
    expect(await queue.getJob(held)).toMatchObject({ status: 'pending' });
    // Nothing more to remove until the recent job is older than the cutoff.
    expect(await backendOf(queue).cleanupOldJobEvents({ olderThan: new Date(T0.getTime() + DAY), batchSize: 1 })).toBe(
      0,
    );
    expect(
      await backendOf(queue).cleanupOldJobEvents({ olderThan: new Date(T0.getTime() + 3 * DAY), batchSize: 1 }),
    ).toBe(1);
    expect(await queue.getJobEvents(recent)).toEqual([]);
  });

  it('keeps the events of new jobs whose ids start again below the floor, should the id sequence be reset', async () => {
    const clock = new ManualClock(T0);
    const queue = ctx.queue({ clock });
    await queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'a', payload: {} },
      { jobType: 'a', payload: {} },
    ]);
    clock.set(new Date(T0.getTime() + 2 * DAY));
    expect(await backendOf(queue).cleanupOldJobEvents({ olderThan: new Date(T0.getTime() + DAY), batchSize: 10 })).toBe(
      3,
    );
    await ctx.sql.query(`DELETE FROM ${ctx.table('job_queue')}`);
    await ctx.sql.query(`ALTER SEQUENCE ${ctx.table('job_queue')}_id_seq RESTART`);
    const again = await queue.addJob({ jobType: 'a', payload: {} });
    expect(again).toBe(1);
    expect((await queue.getJobEvents(again)).map((e) => e.eventType)).toEqual(['added']);
  });
});
