/**
 * An option given as `undefined` is an option left out: `{ x: undefined }` behaves as `{}`,
 * as a program compiled with `exactOptionalPropertyTypes` expects of `?: T | undefined`
 * (an unset variable passed through, `{ timeoutMs: process.env.X ? 1000 : undefined }`).
 * The types side is checked by test/types/optional-undefined.test.ts and
 * test/types/exact-optional.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createQueueDashboard } from '../../src/dashboard/index.js';
import { resolveProcessorOptions } from '../../src/processor-options.js';
import { resolveSupervisorOptions } from '../../src/supervisor.js';
import type { CronJobOptions, JobFilter, JobOptions, JobRecord } from '../../src/types.js';
import { forEachBackend } from '../helpers/backends.js';
import { trackRunners } from './processing-support.js';

/** Every optional member of addJob's options, left undefined (a member added later must be listed). */
const UNDEFINED_JOB_OPTIONS: Record<Exclude<keyof JobOptions, 'jobType' | 'payload'>, undefined> = {
  maxAttempts: undefined,
  priority: undefined,
  runAt: undefined,
  timeoutMs: undefined,
  forceKillOnTimeout: undefined,
  tags: undefined,
  idempotencyKey: undefined,
  retryDelay: undefined,
  retryBackoff: undefined,
  retryDelayMax: undefined,
  deadLetterJobType: undefined,
  group: undefined,
  dependsOn: undefined,
};

/** `value` without the given keys. */
function without(value: object | null, keys: string[]): Record<string, unknown> {
  if (!value) throw new Error('record not found');
  return Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));
}

/** What two jobs added the same way share: all but the id, the payload and the instants. */
function comparable(job: JobRecord | null): Record<string, unknown> {
  const rest = without(job, ['id', 'payload']);
  return Object.fromEntries(Object.entries(rest).filter(([, value]) => !(value instanceof Date)));
}

forEachBackend('options given as undefined are options left out', (ctx) => {
  const track = trackRunners();

  it('addJob and addJobs store the same job for undefined options as for none', async () => {
    const plain = await ctx.queue.addJob({ jobType: 'a', payload: { n: 1 } });
    const undefinedOptions = await ctx.queue.addJob(
      { jobType: 'a', payload: { n: 2 }, ...UNDEFINED_JOB_OPTIONS },
      { db: undefined },
    );
    const [inBatch] = await ctx.queue.addJobs([{ jobType: 'a', payload: { n: 3 }, ...UNDEFINED_JOB_OPTIONS }], {
      db: undefined,
    });
    const expected = comparable(await ctx.queue.getJob(plain));
    expect(comparable(await ctx.queue.getJob(undefinedOptions))).toEqual(expected);
    expect(comparable(await ctx.queue.getJob(inBatch!))).toEqual(expected);
    expect(expected).toMatchObject({ maxAttempts: 3, priority: 0, timeoutMs: null, tags: [], group: null });
  });

  it('undefined members of group, dependsOn and the tag filter are left out', async () => {
    const id = await ctx.queue.addJob({
      jobType: 'a',
      payload: {},
      tags: ['t'],
      group: { id: 'g', tier: undefined },
      dependsOn: { jobIds: undefined, tags: undefined },
    });
    const job = await ctx.queue.getJob(id);
    expect(job?.group).toEqual({ id: 'g' });
    expect(job?.dependsOnJobIds ?? null).toBeNull();
    expect(job?.dependsOnTags ?? null).toBeNull();
    const filter: JobFilter = {
      jobType: undefined,
      jobTypePrefix: undefined,
      priority: undefined,
      runAt: { gt: undefined, gte: undefined, lt: undefined, lte: undefined, eq: undefined },
      tags: { values: ['t'], mode: undefined },
    };
    expect((await ctx.queue.getJobs(filter)).map((j) => j.id)).toEqual([id]);
    expect((await ctx.queue.queryJobs({ ...filter, status: undefined, payloadContains: undefined })).length).toBe(1);
    const page = await ctx.queue.queryJobsPage({ status: undefined }, { limit: undefined, after: undefined });
    expect(page.jobs.map((j) => j.id)).toEqual([id]);
  });

  it('editJob with every field undefined changes nothing, as an empty edit', async () => {
    const id = await ctx.queue.addJob({ jobType: 'a', payload: { n: 1 }, priority: 5, tags: ['x'] });
    const before = await ctx.queue.getJob(id);
    await ctx.queue.editJob(id, {
      payload: undefined,
      maxAttempts: undefined,
      priority: undefined,
      runAt: undefined,
      timeoutMs: undefined,
      tags: undefined,
      retryDelay: undefined,
      retryBackoff: undefined,
      retryDelayMax: undefined,
      deadLetterJobType: undefined,
    });
    expect(comparable(await ctx.queue.getJob(id))).toEqual(comparable(before));
    expect((await ctx.queue.getJob(id))?.payload).toEqual({ n: 1 });
    expect((await ctx.queue.getJobEvents(id)).map((e) => e.eventType)).toEqual(['added']);
  });

  it('addCronJob stores the same schedule for undefined options as for none', async () => {
    const base: CronJobOptions = { scheduleName: 'plain', cronExpression: '0 3 * * *', jobType: 'a', payload: {} };
    const plain = await ctx.queue.addCronJob(base);
    const undefinedOptions = await ctx.queue.addCronJob({
      ...base,
      scheduleName: 'undefined-options',
      timezone: undefined,
      allowOverlap: undefined,
      maxAttempts: undefined,
      priority: undefined,
      timeoutMs: undefined,
      tags: undefined,
      retryDelay: undefined,
      retryBackoff: undefined,
      retryDelayMax: undefined,
    });
    await ctx.queue.editCronJob(undefinedOptions, { timezone: undefined, payload: undefined, priority: undefined });
    const strip = (s: object | null) => without(s, ['id', 'scheduleName', 'createdAt', 'updatedAt']);
    const expected = strip(await ctx.queue.getCronJob(plain));
    expect(strip(await ctx.queue.getCronJob(undefinedOptions))).toEqual(expected);
    expect(expected).toMatchObject({ timezone: 'UTC', allowOverlap: false, maxAttempts: 3 });
  });

  it('createProcessor takes undefined options and handlers as left out', async () => {
    const ran: string[] = [];
    await ctx.queue.addJob({ jobType: 'a', payload: {} });
    const processor = track(
      ctx.queue.createProcessor(
        { a: async () => void ran.push('a'), b: undefined },
        {
          workerId: undefined,
          batchSize: undefined,
          concurrency: undefined,
          claimAhead: undefined,
          groupConcurrency: undefined,
          pollInterval: undefined,
          leaseCheckInterval: undefined,
          onError: undefined,
          verbose: undefined,
          jobType: undefined,
        },
      ),
    );
    expect(await processor.start()).toBe(1);
    expect(ran).toEqual(['a']);
  });

  it('ctx.waitFor adds up the parts given, leaving undefined parts out', async () => {
    const id = await ctx.queue.addJob({ jobType: 'a', payload: {} });
    const before = Date.now();
    const processor = track(
      ctx.queue.createProcessor({
        a: (_payload, _signal, jobContext) => jobContext.waitFor({ minutes: 10, hours: undefined, days: undefined }),
      }),
    );
    await processor.start();
    const job = await ctx.queue.getJob(id);
    expect(job?.status).toBe('waiting');
    const waitMs = (job?.waitUntil?.getTime() ?? 0) - before;
    expect(waitMs).toBeGreaterThanOrEqual(10 * 60_000 - 1000);
    expect(waitMs).toBeLessThanOrEqual(10 * 60_000 + 60_000);
  });

  it('createToken, getJobCounts and close take undefined options as left out', async () => {
    const token = await ctx.queue.createToken({ timeout: undefined, tags: undefined });
    expect(await ctx.queue.getToken(token.id)).toMatchObject({ timeoutAt: null, tags: [] });
    expect(await ctx.queue.getJobCounts({ limit: undefined })).toEqual(await ctx.queue.getJobCounts());
    const other = ctx.makeQueue();
    await other.close({ timeoutMs: undefined });
    await expect(other.getJob(1)).rejects.toThrow('close()');
  });

  it('createQueueDashboard takes undefined options and handlers as left out', async () => {
    const dashboard = createQueueDashboard({
      jobQueue: ctx.queue,
      jobHandlers: { a: async () => undefined, b: undefined },
      basePath: '/jobs',
      processorOptions: { batchSize: undefined },
      readOnly: undefined,
    });
    await ctx.queue.addJob({ jobType: 'a', payload: {} });
    const response = await dashboard.POST(
      new Request('http://localhost/jobs/api/process', {
        method: 'POST',
        headers: { 'sec-fetch-site': 'same-origin' },
      }),
    );
    expect(await response.json()).toEqual({ processed: 1 });
  });
});

describe('processor and supervisor options given as undefined', () => {
  it('resolve as the defaults', () => {
    const processor = resolveProcessorOptions({ workerId: 'w', batchSize: undefined, pollInterval: undefined });
    expect(processor).toEqual(resolveProcessorOptions({ workerId: 'w' }));
    expect(
      resolveSupervisorOptions({
        intervalMs: undefined,
        stuckJobsTimeoutMinutes: undefined,
        cleanupJobsDaysToKeep: undefined,
        cleanupEventsDaysToKeep: undefined,
        cleanupBatchSize: undefined,
        reclaimStuckJobs: undefined,
        expireTimedOutTokens: undefined,
        onError: undefined,
        verbose: undefined,
      }),
    ).toEqual(resolveSupervisorOptions({}));
  });
});
