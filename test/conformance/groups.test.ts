/**
 * Group limits (SPEC §2.10 groupConcurrency, DETAILS "Group limits and concurrency"): the count
 * of processing jobs of a group never exceeds the limit, across processors; jobs without a
 * group are not limited; invalid limits are configuration errors.
 */
import { expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { backendOf } from '../../src/queue.js';
import { forEachBackend } from '../helpers/backends.js';
import { deferred, trackRunners } from './processing-support.js';
import { sleep, waitFor } from '../helpers/wait.js';

forEachBackend('group limits (§2.10)', (ctx) => {
  const track = trackRunners();

  /** A handler that records, per group, the most handlers running at once. */
  function concurrencyProbe() {
    const running = new Map<string, number>();
    const max = new Map<string, number>();
    let done = 0;
    const handler = async (payload: { group: string }) => {
      const n = (running.get(payload.group) ?? 0) + 1;
      running.set(payload.group, n);
      max.set(payload.group, Math.max(max.get(payload.group) ?? 0, n));
      await sleep(30);
      running.set(payload.group, running.get(payload.group)! - 1);
      done++;
    };
    return { handler, max, done: () => done };
  }

  function jobsFor(group: string | null, count: number) {
    return Array.from({ length: count }, () => ({
      jobType: 'work',
      payload: { group: group ?? 'none' },
      ...(group ? { group: { id: group } } : {}),
    }));
  }

  it('wakes an idle processor when the slot its held-back job waits for frees elsewhere, long before its poll interval', async () => {
    const group = { id: 'g' };
    const first = await ctx.queue.addJob({ jobType: 'first', payload: {}, group });
    const second = await ctx.queue.addJob({ jobType: 'second', payload: {}, group });
    // `first` runs on a processor elsewhere, which takes only its own type.
    const [running] = await backendOf(ctx.queue).claimJobs({
      workerId: 'elsewhere',
      batchSize: 1,
      now: new Date(),
      jobTypes: ['first'],
    });
    expect(running?.id).toBe(first);
    const started = deferred<number>();
    const processor = track(
      ctx.queue.createProcessor(
        { second: async () => started.resolve(Date.now()) },
        { groupConcurrency: 1, pollInterval: 60_000 },
      ),
    );
    processor.startInBackground();
    await sleep(300); // its first claim found the group full; the loop now waits for its poll interval
    expect((await ctx.queue.getJob(second))?.status).toBe('pending');
    expect(await backendOf(ctx.queue).completeJobs([{ jobId: first, workerId: 'elsewhere' }], new Date())).toEqual([
      first,
    ]);
    const at = await Promise.race([started.promise, sleep(10_000).then(() => -1)]);
    expect(at, 'the held-back job did not start before the 60 s poll interval').toBeGreaterThan(0);
    await processor.stopAndDrain();
  });

  it('start() claims no more of a group than groupConcurrency', async () => {
    await ctx.queue.addJobs([...jobsFor('g1', 5), ...jobsFor(null, 2)]);
    const processor = ctx.queue.createProcessor({ work: async () => {} }, { groupConcurrency: 2, batchSize: 20 });
    expect(await processor.start()).toBe(4); // 2 of g1, both ungrouped
    expect(await processor.start()).toBe(2);
    expect(await processor.start()).toBe(1);
  });

  it('holds the limit across two processors running at the same time; ungrouped jobs are not limited', async () => {
    await ctx.queue.addJobs([...jobsFor('g1', 8), ...jobsFor('g2', 8), ...jobsFor(null, 8)]);
    const probe = concurrencyProbe();
    const other = ctx.makeQueue();
    const options = { groupConcurrency: 2, concurrency: 8, pollInterval: 20 };
    const p1 = track(ctx.queue.createProcessor({ work: probe.handler }, options));
    const p2 = track(other.createProcessor({ work: probe.handler }, options));
    p1.startInBackground();
    p2.startInBackground();
    await waitFor(() => probe.done() === 24, { timeoutMs: 15_000, what: 'all 24 jobs' });
    await Promise.all([p1.stopAndDrain(), p2.stopAndDrain()]);
    expect(probe.max.get('g1')).toBe(2);
    expect(probe.max.get('g2')).toBe(2);
    expect(probe.max.get('none')).toBeGreaterThan(2);
  });

  it('fills a batch from the groups behind one whose limit it reached', async () => {
    const [a1] = await ctx.queue.addJobs(jobsFor('a', 4));
    const [b1] = await ctx.queue.addJobs(jobsFor('b', 1));
    const [free] = await ctx.queue.addJobs(jobsFor(null, 1));
    const claim = () =>
      backendOf(ctx.queue).claimJobs({ workerId: 'w', batchSize: 3, now: new Date(), groupConcurrency: 1 });
    // Group a's later jobs come before b's and the ungrouped one, but its limit is reached.
    expect((await claim()).map((j) => j.id)).toEqual([a1, b1, free]);
    expect(await claim()).toEqual([]);
  });

  it('runs a job of another group beside a full one at once, not at the next poll', async () => {
    await ctx.queue.addJobs(jobsFor('a', 4));
    await ctx.queue.addJobs(jobsFor('b', 1));
    const bStarted = deferred();
    const handler = async (payload: { group: string }) => {
      if (payload.group === 'b') bStarted.resolve();
      else await Promise.race([bStarted.promise, sleep(10_000)]);
    };
    const processor = track(
      ctx.queue.createProcessor(
        { work: handler },
        { groupConcurrency: 1, batchSize: 2, concurrency: 2, pollInterval: 60_000 },
      ),
    );
    processor.startInBackground();
    const started = await Promise.race([bStarted.promise.then(() => true), sleep(5_000).then(() => false)]);
    expect(started, "group b's job waited while group a's first job ran").toBe(true);
    await processor.stopAndDrain();
  });

  it('limits only jobs that have a group.id', async () => {
    await ctx.queue.addJobs(jobsFor(null, 6));
    const processor = ctx.queue.createProcessor({ work: async () => {} }, { groupConcurrency: 1, batchSize: 10 });
    expect(await processor.start()).toBe(6);
  });

  it('rejects a groupConcurrency that is not a positive integer', () => {
    for (const value of [0, -1, 1.5, Number.NaN, '2', null]) {
      expect(() => ctx.queue.createProcessor({}, { groupConcurrency: value as number }), String(value)).toThrow(
        ConfigError,
      );
      expect(() => ctx.queue.createProcessor({}, { groupConcurrency: value as number })).toThrow(
        /`groupConcurrency`.*positive integer/,
      );
    }
  });
});
