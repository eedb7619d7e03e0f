/**
 * Job dependencies as the processor sees them (SPEC §4.8, §3): a job runs only after its
 * prerequisites completed, waits behind a tag barrier, and is cancelled, transitively, when a
 * prerequisite ends failed with no retry left.
 */
import { expect, it } from 'vitest';
import { batchDepRef } from '../../src/queue.js';
import { forEachBackend } from '../helpers/backends.js';

forEachBackend('dependencies at run time (§4.8)', (ctx) => {
  it('runs a dependent only after every prerequisite completed', async () => {
    const order: string[] = [];
    const [a, b, c] = await ctx.queue.addJobs([
      { jobType: 'step', payload: { name: 'a' } },
      { jobType: 'step', payload: { name: 'b' } },
      {
        jobType: 'step',
        payload: { name: 'c' },
        priority: 10,
        dependsOn: { jobIds: [batchDepRef(0), batchDepRef(1)] },
      },
    ]);
    const processor = ctx.queue.createProcessor({ step: async (p: { name: string }) => void order.push(p.name) });
    expect(await processor.start()).toBe(2); // c has the highest priority but is not eligible yet
    expect(order.sort()).toEqual(['a', 'b']);
    expect((await ctx.queue.getJob(c!))?.status).toBe('pending');
    expect(await processor.start()).toBe(1);
    expect(order).toEqual(['a', 'b', 'c']);
    for (const id of [a, b, c]) expect((await ctx.queue.getJob(id!))?.status).toBe('completed');
  });

  it('keeps a dependent pending while its prerequisite waits for a retry', async () => {
    const a = await ctx.queue.addJob({ jobType: 'flaky', payload: {}, maxAttempts: 2 });
    const b = await ctx.queue.addJob({ jobType: 'after', payload: {}, dependsOn: { jobIds: [a] } });
    const processor = ctx.queue.createProcessor({
      flaky: () => Promise.reject(new Error('no')),
      after: async () => {},
    });
    expect(await processor.start()).toBe(1);
    expect((await ctx.queue.getJob(a))?.status).toBe('failed');
    expect((await ctx.queue.getJob(b))?.status).toBe('pending');
  });

  it('holds a tag-barrier job while other active jobs carry all its tags', async () => {
    const [x, y] = await ctx.queue.addJobs([
      { jobType: 'import', payload: {}, tags: ['batch:7', 'import'] },
      { jobType: 'import', payload: {}, tags: ['batch:7'] },
      { jobType: 'other', payload: {}, tags: ['import'] },
    ]);
    const report = await ctx.queue.addJob({
      jobType: 'report',
      payload: {},
      priority: 100,
      dependsOn: { tags: ['batch:7'] },
    });
    const order: string[] = [];
    const processor = ctx.queue.createProcessor(
      {
        import: async () => void order.push('import'),
        report: async () => void order.push('report'),
        other: async () => {},
      },
      { jobType: ['import', 'report'] },
    );
    expect(await processor.start()).toBe(2);
    for (const id of [x, y]) expect((await ctx.queue.getJob(id!))?.status).toBe('completed');
    // 'other' (tag import only) is still pending but does not carry batch:7
    expect(await processor.start()).toBe(1);
    expect(order).toEqual(['import', 'import', 'report']);
    expect((await ctx.queue.getJob(report))?.status).toBe('completed');
  });

  it('cancels dependents transitively when a prerequisite fails with no retry left', async () => {
    const cancelled: number[] = [];
    const failed: boolean[] = [];
    ctx.queue.on('job:cancelled', (e) => cancelled.push(e.jobId));
    ctx.queue.on('job:failed', (e) => failed.push(e.willRetry));
    const [a, b, c] = await ctx.queue.addJobs([
      { jobType: 'root', payload: {}, maxAttempts: 1 },
      { jobType: 'child', payload: {}, dependsOn: { jobIds: [batchDepRef(0)] } },
      { jobType: 'grandchild', payload: {}, dependsOn: { jobIds: [batchDepRef(1)] } },
    ]);
    const unrelated = await ctx.queue.addJob({
      jobType: 'child',
      payload: {},
      runAt: new Date(Date.now() + 3_600_000),
    });
    await ctx.queue
      .createProcessor({
        root: () => Promise.reject(new Error('root failed')),
        child: async () => {},
        grandchild: async () => {},
      })
      .start();
    expect((await ctx.queue.getJob(a!))?.status).toBe('failed');
    expect((await ctx.queue.getJob(b!))?.status).toBe('cancelled');
    expect((await ctx.queue.getJob(c!))?.status).toBe('cancelled');
    expect((await ctx.queue.getJob(unrelated))?.status).toBe('pending');
    expect(failed).toEqual([false]);
    expect(cancelled.sort((m, n) => m - n)).toEqual([b, c]);
  });
});
