/**
 * Limits that keep one call from holding the store (docs/jobs.md "Limits"): at most 100 tags in
 * any list of tags a call takes, and a payload (or token output) of at most the queue's
 * `maxPayloadBytes` as JSON in UTF-8, 1 MiB by default. Past them: a ValidationError naming the
 * field, the rule and the size (never the value), and nothing is written.
 */
import { expect, it } from 'vitest';
import { ConfigError, ValidationError } from '../../src/errors.js';
import { initJobQueue } from '../../src/index.js';
import type { JobOptions } from '../../src/types.js';
import { forEachBackend } from '../helpers/backends.js';
import { expectFailure } from './assertions.js';

/** `n` distinct tags. */
const tags = (n: number) => Array.from({ length: n }, (_, i) => `tag-${i}`);

/** An object payload whose JSON takes exactly `bytes` bytes in UTF-8: `{"s":"xx…"}`. */
const payloadOf = (bytes: number) => ({ s: 'x'.repeat(bytes - '{"s":""}'.length) });

forEachBackend('input size limits', (ctx) => {
  it('takes 100 tags on a job and refuses 101 in addJob, addJobs, dependsOn, editJob and editAllPendingJobs', async () => {
    const id = await ctx.queue.addJob({ jobType: 'a', payload: {}, tags: tags(100) });
    expect((await ctx.queue.getJob(id))?.tags).toHaveLength(100);
    const before = await ctx.queue.getJob(id);
    const rule = ['at most 100 tags', 'got an array of length 101'];
    await expectFailure(ctx.queue.addJob({ jobType: 'a', payload: {}, tags: tags(101) }), ValidationError, {
      field: 'tags',
      message: rule,
    });
    await expectFailure(
      ctx.queue.addJob({ jobType: 'a', payload: {}, dependsOn: { tags: tags(101) } }),
      ValidationError,
      { field: 'dependsOn.tags', message: rule },
    );
    // One job over the limit refuses its whole batch, as any invalid job of a batch does.
    const batch: JobOptions[] = [
      { jobType: 'b', payload: {} },
      { jobType: 'b', payload: {}, tags: tags(101) },
    ];
    await expectFailure(ctx.queue.addJobs(batch), ValidationError, { field: 'jobs[1].tags', message: rule });
    await expectFailure(ctx.queue.editJob(id, { tags: tags(101) }), ValidationError, {
      field: 'updates.tags',
      message: rule,
    });
    await expectFailure(ctx.queue.editAllPendingJobs(undefined, { tags: tags(101) }), ValidationError, {
      field: 'updates.tags',
    });
    expect(await ctx.queue.getAllJobs()).toEqual([before]);
  });

  it('refuses 100,000 tags on one job at once, naming their count and not the tags', async () => {
    const error = await expectFailure(
      ctx.queue.addJob({ jobType: 'a', payload: {}, tags: tags(100_000) }),
      ValidationError,
      { field: 'tags', message: ['got an array of length 100000'] },
    );
    expect(error.message).not.toContain('tag-1');
    expect(await ctx.queue.getAllJobs()).toEqual([]);
  });

  it('refuses a tag filter of more than 100 values in every read and bulk action that takes one', async () => {
    const id = await ctx.queue.addJob({ jobType: 'a', payload: {}, tags: ['tag-0'] });
    const filter = { tags: { values: tags(101) } };
    const field = 'filter.tags.values';
    await expectFailure(ctx.queue.getJobs(filter), ValidationError, { field });
    await expectFailure(ctx.queue.queryJobs(filter), ValidationError, { field });
    await expectFailure(ctx.queue.countJobs(filter), ValidationError, { field });
    await expectFailure(ctx.queue.getJobsByTags(tags(101), 'any'), ValidationError, { field: 'tags' });
    await expectFailure(ctx.queue.cancelAllUpcomingJobs(filter), ValidationError, { field });
    await expectFailure(ctx.queue.retryAllFailedJobs(filter), ValidationError, { field });
    await expectFailure(ctx.queue.editAllPendingJobs(filter, { priority: 5 }), ValidationError, { field });
    expect(await ctx.queue.getJobs({ tags: { values: tags(100), mode: 'any' } })).toHaveLength(1);
    expect((await ctx.queue.getJob(id))?.status).toBe('pending');
    expect((await ctx.queue.getJob(id))?.priority).toBe(0);
  });

  it('refuses more than 100 tags on a cron schedule and on a token', async () => {
    const schedule = { scheduleName: 's', cronExpression: '* * * * *', jobType: 'a', payload: {} };
    await expectFailure(ctx.queue.addCronJob({ ...schedule, tags: tags(101) }), ValidationError, { field: 'tags' });
    await expectFailure(ctx.queue.createToken({ tags: tags(101) }), ValidationError, { field: 'tags' });
    expect(await ctx.queue.listCronJobs()).toEqual([]);
    const id = await ctx.queue.addCronJob({ ...schedule, tags: tags(100) });
    await expectFailure(ctx.queue.editCronJob(id, { tags: tags(101) }), ValidationError, { field: 'tags' });
    expect((await ctx.queue.getCronJob(id))?.tags).toHaveLength(100);
  });

  it('takes a payload of exactly maxPayloadBytes and refuses one byte more in addJob, addJobs, editJob and editAllPendingJobs', async () => {
    const queue = ctx.makeQueue({ maxPayloadBytes: 1024 });
    const id = await queue.addJob({ jobType: 'a', payload: payloadOf(1024) });
    expect((await queue.getJob(id))?.payload).toEqual(payloadOf(1024));
    const before = await queue.getJob(id);
    const rule = 'JSON of at most 1024 bytes in UTF-8';
    await expectFailure(queue.addJob({ jobType: 'a', payload: payloadOf(1025) }), ValidationError, {
      field: 'payload',
      message: [rule, 'maxPayloadBytes', 'got at least 1025 bytes'],
    });
    const batch: JobOptions[] = [
      { jobType: 'b', payload: {} },
      { jobType: 'b', payload: payloadOf(1025) },
    ];
    await expectFailure(queue.addJobs(batch), ValidationError, { field: 'jobs[1].payload', message: [rule] });
    await expectFailure(queue.editJob(id, { payload: payloadOf(1025) }), ValidationError, {
      field: 'updates.payload',
      message: [rule],
    });
    await expectFailure(queue.editAllPendingJobs(undefined, { payload: payloadOf(1025) }), ValidationError, {
      field: 'updates.payload',
    });
    expect(await queue.getAllJobs()).toEqual([before]);
  });

  it('counts the payload in UTF-8 bytes, escapes included', async () => {
    const queue = ctx.makeQueue({ maxPayloadBytes: 20 });
    // "é" takes 2 bytes in UTF-8, a newline 2 as the escape \n: 2 quotes + 18 bytes each.
    for (const text of ['é'.repeat(9), '\n'.repeat(9)]) {
      await queue.addJob({ jobType: 'a', payload: text });
      await expectFailure(queue.addJob({ jobType: 'a', payload: text + 'x' }), ValidationError, {
        field: 'payload',
        message: ['got 21 bytes'],
      });
    }
    expect(await queue.getAllJobs()).toHaveLength(2);
  });

  it("refuses a schedule's payload and a token's output over maxPayloadBytes; nothing is written", async () => {
    const queue = ctx.makeQueue({ maxPayloadBytes: 1024 });
    const schedule = { scheduleName: 's', cronExpression: '* * * * *', jobType: 'a' };
    await expectFailure(queue.addCronJob({ ...schedule, payload: payloadOf(1025) }), ValidationError, {
      field: 'payload',
      message: ['at most 1024 bytes'],
    });
    expect(await queue.listCronJobs()).toEqual([]);
    const id = await queue.addCronJob({ ...schedule, payload: payloadOf(1024) });
    await expectFailure(queue.editCronJob(id, { payload: payloadOf(1025) }), ValidationError, { field: 'payload' });
    expect((await queue.getCronJob(id))?.payload).toEqual(payloadOf(1024));

    const { id: token } = await queue.createToken();
    await expectFailure(queue.completeToken(token, payloadOf(1025)), ValidationError, {
      field: 'output',
      message: ['at most 1024 bytes'],
    });
    expect((await queue.getToken(token))?.status).toBe('waiting');
    await queue.completeToken(token, payloadOf(1024));
    expect(await queue.getToken(token)).toMatchObject({ status: 'completed', output: payloadOf(1024) });
  });

  it("enqueues a stored schedule's job whatever the payload limit of the queue that enqueues it", async () => {
    const large = ctx.makeQueue({ maxPayloadBytes: 4096 });
    const small = ctx.makeQueue({ maxPayloadBytes: 1024 });
    const id = await large.addCronJob({
      scheduleName: 's',
      cronExpression: '* * * * *',
      jobType: 'a',
      payload: payloadOf(2048),
    });
    // Its payload was checked when the schedule was written; a slot never refuses it.
    const jobId = await small.triggerCronJob(id);
    expect((await small.getJob(jobId!))?.payload).toEqual(payloadOf(2048));
    await small.editCronJob(id, { priority: 3 });
    expect((await small.getCronJob(id))?.priority).toBe(3);
  });

  it('refuses a 20 MB and a 100 MB payload under the default limit of 1 MiB, naming the size and not the text', async () => {
    for (const megabytes of [20, 100]) {
      const bytes = megabytes * 1024 * 1024;
      const error = await expectFailure(
        ctx.queue.addJob({ jobType: 'a', payload: 'x'.repeat(bytes) }),
        ValidationError,
        { field: 'payload', message: ['at most 1048576 bytes', `got at least ${bytes + 2} bytes`] },
      );
      expect(error.message).not.toContain('xxxxxxxxxx');
    }
    await ctx.queue.addJob({ jobType: 'a', payload: payloadOf(1_048_576) });
    expect(await ctx.queue.getAllJobs()).toHaveLength(1);
  });

  it('refuses a maxPayloadBytes that is not an integer from 1 to 256 MiB when the queue is created', () => {
    const attempt = (maxPayloadBytes: unknown) => () =>
      initJobQueue({ ...ctx.config, maxPayloadBytes } as unknown as Parameters<typeof initJobQueue>[0]);
    for (const bad of [0, -1, 1.5, '1MB', Number.POSITIVE_INFINITY, 268_435_457]) {
      expect(attempt(bad)).toThrow(ConfigError);
    }
    expect(attempt(0)).toThrow('Expected `maxPayloadBytes` to be an integer between 1 and 268435456, got 0 (number)');
    expect(() => ctx.makeQueue({ maxPayloadBytes: 268_435_456 })).not.toThrow();
  });
});
