/**
 * The `added` event a job without tags or idempotency key keeps in its metadata
 * (`addedEventId`): the add writes no event, the history reads the event first, and the cleanup
 * removes old ones by raising a floor of job ids (`added-floor`), reading the jobs and writing
 * none of them. The same rules as PostgreSQL's migrations 013 and 014.
 */
import { describe, expect, it } from 'vitest';
import { redisKeys } from '../../src/backends/redis/keys.js';
import { backendOf } from '../../src/queue.js';
import { ManualClock } from '../helpers/backends.js';
import { useRedis } from './support.js';

const T0 = new Date('2030-06-01T12:00:00.000Z');
const DAY = 86_400_000;

describe('the added event kept in the job metadata (redis)', () => {
  const ctx = useRedis();

  const storedEvents = async (jobId: number) => {
    const keys = redisKeys(ctx.prefix);
    const events = await ctx.redis.hvals(keys.events);
    return events
      .map((text) => JSON.parse(text) as { jobId: number; eventType: string })
      .filter((e) => e.jobId === jobId);
  };
  const cleanup = (queue: ReturnType<typeof ctx.queue>, olderThan: Date, batchSize: number) =>
    backendOf(queue).cleanupOldJobEvents({ olderThan, batchSize });

  it('keeps the event of a plain job in its metadata, and of a tagged or keyed one as an event', async () => {
    const queue = ctx.queue();
    const plain = await queue.addJob({ jobType: 'a', payload: {} });
    const [batched] = await queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'a', payload: {}, tags: ['x'] },
    ]);
    const grouped = await queue.addJob({ jobType: 'a', payload: {}, group: { id: 'g' } });
    const tagged = await queue.addJob({ jobType: 'a', payload: {}, tags: ['t'] });
    const keyed = await queue.addJob({ jobType: 'a', payload: {}, idempotencyKey: 'k' });
    for (const id of [plain, batched!, grouped]) expect(await storedEvents(id)).toEqual([]);
    for (const id of [tagged, keyed]) expect((await storedEvents(id)).map((e) => e.eventType)).toEqual(['added']);
    for (const id of [plain, batched!, grouped]) {
      expect(await queue.getJobEvents(id)).toEqual([
        {
          id: expect.any(Number) as number,
          jobId: id,
          eventType: 'added',
          createdAt: (await queue.getJob(id))!.createdAt,
          metadata: { jobType: 'a', tags: [], idempotencyKey: null },
        },
      ]);
    }
    // The kept event orders before the events written after it, and survives the rewrites of
    // the metadata (an edit, a cancel).
    await queue.editJob(plain, { priority: 2 });
    await queue.cancelJob(plain);
    const history = await queue.getJobEvents(plain);
    expect(history.map((e) => e.eventType)).toEqual(['added', 'edited', 'cancelled']);
    expect(history.map((e) => e.id)).toEqual([...history.map((e) => e.id)].sort((a, b) => a - b));
    // Event ids stay unique across kept events and events of their own.
    const ids = (await Promise.all([plain, batched!, grouped, tagged, keyed].map((id) => queue.getJobEvents(id))))
      .flat()
      .map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('removes old kept events by raising a floor: no job is written', async () => {
    const clock = new ManualClock(T0);
    const queue = ctx.queue({ clock });
    const [first, second] = (await queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'a', payload: {} },
    ])) as [number, number];
    const tagged = await queue.addJob({ jobType: 'a', payload: {}, tags: ['t'] });
    clock.set(new Date(T0.getTime() + 2 * DAY));
    const recent = await queue.addJob({ jobType: 'a', payload: {} });
    const keys = redisKeys(ctx.prefix);
    const metadata = async () => ctx.redis.hgetall(keys.jobs);
    const before = await metadata();

    // Both kept events and the tagged job's event, in batches of one.
    expect(await cleanup(queue, new Date(T0.getTime() + DAY), 1)).toBe(3);
    for (const id of [first, second, tagged]) expect(await queue.getJobEvents(id)).toEqual([]);
    expect((await queue.getJobEvents(recent)).map((e) => e.eventType)).toEqual(['added']);
    expect(await metadata()).toEqual(before);
    // Nothing more until the recent job is older than the cutoff.
    expect(await cleanup(queue, new Date(T0.getTime() + DAY), 1)).toBe(0);
    expect(await cleanup(queue, new Date(T0.getTime() + 3 * DAY), 1)).toBe(1);
    expect(await queue.getJobEvents(recent)).toEqual([]);
  });

  it('keeps the events of new jobs whose ids start again below the floor, should the id counter be reset', async () => {
    const clock = new ManualClock(T0);
    const queue = ctx.queue({ clock });
    const ids = await queue.addJobs([
      { jobType: 'a', payload: {} },
      { jobType: 'a', payload: {} },
    ]);
    clock.set(new Date(T0.getTime() + 2 * DAY));
    expect(await cleanup(queue, new Date(T0.getTime() + DAY), 10)).toBe(2);
    for (const id of ids) {
      await queue.cancelJob(id);
      await queue.deleteJob(id);
    }
    await ctx.redis.set(redisKeys(ctx.prefix).id, '0');
    const again = await queue.addJob({ jobType: 'a', payload: {} });
    expect(again).toBe(1);
    expect((await queue.getJobEvents(again)).map((e) => e.eventType)).toEqual(['added']);
  });
});
