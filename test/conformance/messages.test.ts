/**
 * Refusals reported by the store read the same on both backends, word for word: a backend
 * reports a fact (unknown ids, a taken name) and one renderer writes the sentence. Each test
 * asserts the exact message, which is the same string on every backend; the last test also
 * compares the messages the backends produced in this file.
 */
import { afterAll, expect, it } from 'vitest';
import { DependencyError, NotFoundError, ValidationError } from '../../src/errors.js';
import { backendOf } from '../../src/queue.js';
import { forEachBackend } from '../helpers/backends.js';
import { expectFailure } from './assertions.js';
import { claimJob, failJob } from './job-states.js';

/** Message of each case, per backend, compared after every backend ran. */
const seen = new Map<string, Map<string, string>>();

function record(backend: string, name: string, message: string): void {
  if (!seen.has(name)) seen.set(name, new Map());
  seen.get(name)!.set(backend, message);
}

forEachBackend('refusals read the same on every backend', (ctx) => {
  it('an unknown prerequisite of addJob', async () => {
    const error = await expectFailure(
      ctx.queue.addJob({ jobType: 'b', payload: {}, dependsOn: { jobIds: [424_242] } }),
      DependencyError,
    );
    expect(error.message).toBe(
      'Unknown prerequisite job ids: 424242. Expected `dependsOn.jobIds` to name jobs that can still complete: ' +
        'job 424242 does not exist (in `dependsOn.jobIds`). Nothing was added.',
    );
    record(ctx.backend, 'unknown prerequisite', error.message);
  });

  it('unknown, cancelled and failed prerequisites of an addJobs batch, each with the jobs listing it', async () => {
    const cancelled = await ctx.queue.addJob({ jobType: 'cancelled', payload: {} });
    await ctx.queue.cancelJob(cancelled);
    const failed = await ctx.queue.addJob({ jobType: 'failed', payload: {} });
    await failJob(ctx.queue, failed);
    const unknown = 424_242;
    const error = await expectFailure(
      ctx.queue.addJobs([
        { jobType: 'a', payload: {}, dependsOn: { jobIds: [failed, unknown] } },
        { jobType: 'b', payload: {} },
        { jobType: 'c', payload: {}, dependsOn: { jobIds: [cancelled, failed] } },
      ]),
      DependencyError,
    );
    expect(error.message).toBe(
      `Unknown prerequisite job ids: ${unknown}. Expected \`dependsOn.jobIds\` to name jobs that can still complete: ` +
        `job ${cancelled} already ended cancelled and can never complete (in \`jobs[2].dependsOn.jobIds\`); ` +
        `job ${failed} already ended failed with no retry left and can never complete (in \`jobs[0].dependsOn.jobIds\`, \`jobs[2].dependsOn.jobIds\`); ` +
        `job ${unknown} does not exist (in \`jobs[0].dependsOn.jobIds\`). Nothing was added.`,
    );
    record(ctx.backend, 'blocked prerequisites', error.message.replaceAll(/job \d+ already/g, 'job <id> already'));
  });

  it('a taken schedule name', async () => {
    const schedule = { scheduleName: 'nightly', cronExpression: '0 3 * * *', jobType: 'report', payload: {} };
    const holder = await ctx.queue.addCronJob(schedule);
    const error = await expectFailure(ctx.queue.addCronJob(schedule), ValidationError, { field: 'scheduleName' });
    expect(error.message).toBe(
      `Expected \`scheduleName\` to be unique, got "nightly" (string), already the name of cron schedule ${holder}`,
    );
    record(ctx.backend, 'schedule name taken', error.message.replace(/\d+$/, '<id>'));
  });

  it('a taken waitpoint token id', async () => {
    const id = 'wp_00000000-0000-4000-8000-000000000001';
    const token = { id, jobId: null, timeoutAt: null, tags: [], now: new Date() };
    await backendOf(ctx.queue).createToken(token);
    const error = await expectFailure(backendOf(ctx.queue).createToken(token), ValidationError, { field: 'id' });
    expect(error.message).toBe(`Expected a new waitpoint token id, got "${id}" (string), already taken`);
    record(ctx.backend, 'token id taken', error.message);
  });

  it('a wait on an unknown waitpoint token', async () => {
    const jobId = await ctx.queue.addJob({ jobType: 'waits', payload: {} });
    await claimJob(ctx.queue, jobId);
    const tokenId = 'wp_00000000-0000-4000-8000-000000000002';
    const error = await expectFailure(
      backendOf(ctx.queue).enterWait({
        jobId,
        workerId: 'conformance-worker',
        waitUntil: null,
        tokenId,
        now: new Date(),
      }),
      NotFoundError,
    );
    expect(error.message).toBe(`Expected \`tokenId\` to name an existing waitpoint token, got "${tokenId}" (string)`);
    record(ctx.backend, 'unknown token', error.message);
  });
});

afterAll(() => {
  // Every backend that ran produced the very same sentence for each case.
  for (const [name, byBackend] of seen) {
    expect(new Set(byBackend.values()).size, `${name}: ${JSON.stringify(Object.fromEntries(byBackend))}`).toBe(1);
  }
});
