/**
 * A job whose stored metadata is not a job's (text written or damaged outside the queue: not
 * JSON, or JSON without a job's type, status and priority) holds up no other job on Redis. A
 * claim passes over it, takes it out of its way and reports it once; the walks of a promotion,
 * a reclaim and the cleanups go on past it; its text is left as it is. PostgreSQL stores typed
 * columns, so no job there can be in this state.
 */
import { describe, expect, it } from 'vitest';
import { pad, storeName } from '../../src/backends/redis/keys.js';
import { ManualClock } from '../../src/clock.js';
import { backendOf, type JobQueue } from '../../src/queue.js';
import { useRedis } from './support.js';

const WORKER = 'w1';

describe('redis: a job whose metadata cannot be read', () => {
  const ctx = useRedis();
  const key = (name: string) => storeName(ctx.prefix, name, 0);
  const errorsOf = (q: JobQueue) => {
    const errors: Error[] = [];
    q.on('error', (e) => errors.push(e));
    return errors;
  };
  const claim = (q: JobQueue, now = new Date()) => backendOf(q).claimJobs({ workerId: WORKER, batchSize: 10, now });

  it.each([
    ['text that is not JSON', 'not json{'],
    ['JSON that is not an object', '[1,2,3]'],
    ['an object without a job type', '{"id":1,"status":"pending","priority":0}'],
  ])('is passed over by a claim, reported once, and the jobs behind it are claimed: %s', async (_, text) => {
    const q = ctx.queue();
    const errors = errorsOf(q);
    const [damaged, second, third] = await q.addJobs([
      { jobType: 'x', payload: 1, priority: 5 },
      { jobType: 'x', payload: 2 },
      { jobType: 'y', payload: 3 },
    ]);
    await ctx.redis.hset(key('jobs'), String(damaged), text);

    expect((await claim(q)).map((j) => j.id)).toEqual([second, third]);
    expect(errors.map((e) => e.message)).toEqual([
      `job ${String(damaged)} was passed over by a claim: its metadata (field ${String(damaged)} of the \`jobs\` hash)` +
        " is not a job's stored JSON, so it is not claimed; repair the field, then edit or retry the job to make it due again",
    ]);
    // Out of the claim's way, its text as it was.
    expect(await ctx.redis.zscore(key('ready'), pad(damaged!))).toBeNull();
    expect(await ctx.redis.hget(key('jobs'), String(damaged))).toBe(text);

    expect(await claim(q)).toEqual([]);
    expect(errors).toHaveLength(1);
  });

  it('is passed over by a claim limited to its job type', async () => {
    const q = ctx.queue();
    const errors = errorsOf(q);
    const [damaged, behind] = await q.addJobs([
      { jobType: 'x', payload: 1 },
      { jobType: 'x', payload: 2 },
    ]);
    await ctx.redis.hset(key('jobs'), String(damaged), 'not json{');

    const claimed = await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 10, jobTypes: ['x'], now: new Date() });
    expect(claimed.map((j) => j.id)).toEqual([behind]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain(`job ${String(damaged)} was passed over by a claim`);
  });

  it('is reported once, however many claims read it again as a possible holder of a tag barrier', async () => {
    const q = ctx.queue();
    const errors = errorsOf(q);
    const [damaged] = await q.addJobs([{ jobType: 'x', payload: 0, tags: ['t'], priority: 5 }]);
    const waiting = await q.addJobs([1, 2, 3].map((n) => ({ jobType: 'x', payload: n, dependsOn: { tags: ['t'] } })));
    await ctx.redis.hset(key('jobs'), String(damaged), 'not json{');

    // Each claim checks the barrier, whose only other holder is the unreadable job: like a job
    // that is gone, it holds nothing.
    const claimed: number[] = [];
    for (let i = 0; i < 3; i++) {
      const jobs = await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 1, now: new Date() });
      claimed.push(...jobs.map((j) => j.id));
    }
    expect(claimed).toEqual(waiting);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain(`job ${String(damaged)} was passed over by a claim`);
  });

  it('is passed over when it comes due from the schedule, and runs again once repaired and edited', async () => {
    const clock = new ManualClock();
    const q = ctx.queue({ clock });
    const errors = errorsOf(q);
    const later = new Date(clock.now().getTime() + 60_000);
    const [scheduled] = await q.addJobs([{ jobType: 'x', payload: 1, runAt: later }]);
    const [due] = await q.addJobs([{ jobType: 'x', payload: 2 }]);
    const stored = (await ctx.redis.hget(key('jobs'), String(scheduled)))!;
    await ctx.redis.hset(key('jobs'), String(scheduled), 'not json{');
    clock.advance(61_000);

    expect((await claim(q, clock.now())).map((j) => j.id)).toEqual([due]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain(`job ${String(scheduled)} was passed over by a claim`);
    expect(await ctx.redis.zscore(key('scheduled'), pad(scheduled!))).toBeNull();

    // What the report says to do.
    await ctx.redis.hset(key('jobs'), String(scheduled), stored);
    await q.editJob(scheduled!, { runAt: clock.now() });
    expect((await claim(q, clock.now())).map((j) => j.id)).toEqual([scheduled]);
  });

  it('holds up no reclaim, cleanup or count, and keeps the events stored apart', async () => {
    const clock = new ManualClock();
    const q = ctx.queue({ clock });
    const [stuck, lost, done, finished] = await q.addJobs(
      [1, 2, 3, 4].map((n) => ({ jobType: 'x', payload: n, tags: ['t'] })),
    );
    expect((await claim(q, clock.now())).map((j) => j.id)).toEqual([stuck, lost, done, finished]);
    expect(
      await backendOf(q).completeJobs(
        [done!, finished!].map((jobId) => ({ jobId, workerId: WORKER })),
        clock.now(),
      ),
    ).toEqual([done, finished]);
    // A processing job and a finished one, both unreadable now.
    await ctx.redis.hset(key('jobs'), String(lost), 'not json{');
    await ctx.redis.hset(key('jobs'), String(finished), 'not json{');

    clock.advance(11 * 60_000);
    expect(await q.reclaimStuckJobs(10)).toBe(1);
    expect((await q.getJob(stuck!))?.status).toBe('pending');

    // The unreadable processing and finished jobs are not counted.
    expect((await q.getJobCounts()).byJobType).toEqual([
      { jobType: 'x', counts: { pending: 1, processing: 0, completed: 1, failed: 0, cancelled: 0, waiting: 0 } },
    ]);
    // Its `added` event was stored apart (it has tags), so it is still shown.
    expect((await q.getJobEvents(finished!)).map((e) => e.eventType)).toEqual(['added']);

    clock.advance(31 * 24 * 3_600_000);
    await q.cleanupOldJobEvents(30);
    expect(await q.cleanupOldJobs(30)).toBe(1);
    expect(await q.getJob(done!)).toBeNull();
    expect(await ctx.redis.hget(key('jobs'), String(finished))).toBe('not json{');
  });
});
