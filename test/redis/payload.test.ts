/**
 * Payloads, outputs and step data are stored as verbatim JSON text and never decoded by Lua
 * (cjson would round numbers to 14 digits and turn [] into {}): every path a payload takes
 * must give back exactly what went in.
 */
import { describe, expect, it } from 'vitest';
import { backendOf } from '../../src/queue.js';
import { useRedis } from './support.js';
import { failOne } from '../helpers/fail.js';

const WORKER = 'w1';

const TRICKY = {
  tenth: 0.1,
  third: 1 / 3,
  huge: 1e300,
  tiny: 5e-324,
  maxSafe: 9007199254740991,
  negative: -123456789.98765433,
  nested: [[1, [2.5, []]], { a: { b: [{}] } }],
  emptyArray: [],
  emptyObject: {},
  unicode: 'héllo wörld ✓ 日本語 🎉 \u2028 "quoted" \\ / <tag>',
  nothing: null,
  flag: false,
  '': 'empty key',
};

describe('payload exactness on redis', () => {
  const ctx = useRedis();

  it('round-trips through addJob, getJob, getJobs and claimJobs', async () => {
    const q = ctx.queue();
    const id = await q.addJob({ jobType: 'exact', payload: TRICKY, tags: ['p'] });
    const [arrayId] = await q.addJobs([{ jobType: 'exact', payload: [[], {}, 0.30000000000000004] }]);
    const scalarId = await q.addJob({ jobType: 'exact', payload: 12345.678901234567 });

    expect((await q.getJob(id))?.payload).toEqual(TRICKY);
    expect(JSON.stringify((await q.getJob(id))?.payload)).toBe(JSON.stringify(TRICKY));
    expect((await q.getJob(arrayId!))?.payload).toEqual([[], {}, 0.30000000000000004]);
    expect((await q.getJob(scalarId))?.payload).toBe(12345.678901234567);
    expect((await q.getJobsByTags(['p']))[0]?.payload).toEqual(TRICKY);

    const claimed = await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 10, now: new Date() });
    expect(claimed.find((j) => j.id === id)?.payload).toEqual(TRICKY);
  });

  it('round-trips an edited payload and the `edited` event metadata', async () => {
    const q = ctx.queue();
    const id = await q.addJob({ jobType: 'exact', payload: {} });
    await q.editJob(id, { payload: TRICKY });
    expect((await q.getJob(id))?.payload).toEqual(TRICKY);
    const edited = (await q.getJobEvents(id)).find((e) => e.eventType === 'edited');
    expect(edited?.metadata).toEqual({ payload: TRICKY });
  });

  it('splices the payload verbatim into the dead-letter envelope', async () => {
    const q = ctx.queue();
    const id = await q.addJob({ jobType: 'exact', payload: TRICKY, maxAttempts: 1, deadLetterJobType: 'dead' });
    await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 1, now: new Date() });
    const now = new Date();
    const result = await failOne(backendOf(q), {
      jobId: id,
      workerId: WORKER,
      message: 'bad "thing" ✓',
      reason: 'handler_error',
      retryAt: null,
      now,
    });
    const dead = await q.getJob(result!.deadLetterJobId!);
    expect(dead?.payload).toEqual({
      originalJob: { id, jobType: 'exact', attempts: 1, maxAttempts: 1 },
      originalPayload: TRICKY,
      failure: { message: 'bad "thing" ✓', reason: 'handler_error', failedAt: now.toISOString() },
    });
  });

  it('round-trips outputs from completeJobs and setOutput', async () => {
    const q = ctx.queue();
    const [a, b] = await q.addJobs([
      { jobType: 'exact', payload: 1 },
      { jobType: 'exact', payload: 2 },
    ]);
    await backendOf(q).claimJobs({ workerId: WORKER, batchSize: 2, now: new Date() });
    expect(await backendOf(q).setOutput({ jobId: b!, workerId: WORKER, output: TRICKY, now: new Date() })).toBe(true);
    expect((await q.getJob(b!))?.output).toEqual(TRICKY);
    await backendOf(q).completeJobs(
      [
        { jobId: a!, workerId: WORKER, output: TRICKY },
        { jobId: b!, workerId: WORKER },
      ],
      new Date(),
    );
    expect((await q.getJob(a!))?.output).toEqual(TRICKY);
    expect((await q.getJob(b!))?.output).toEqual(TRICKY);
  });

  it('keeps float options exact and empty lists as arrays after scripts rewrite the metadata', async () => {
    const q = ctx.queue();
    const id = await q.addJob({ jobType: 'exact', payload: {}, retryDelay: 1 / 3, retryDelayMax: 0.1 + 0.2 });
    await q.editJob(id, { priority: 3 }); // decoded and re-encoded by cjson
    const job = await q.getJob(id);
    expect(job?.retryDelay).toBe(1 / 3);
    expect(job?.retryDelayMax).toBe(0.1 + 0.2);
    expect(job?.tags).toEqual([]);
    expect(job?.errorHistory).toEqual([]);
    expect(job?.dependsOnJobIds).toBeNull();
  });
});
