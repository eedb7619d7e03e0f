/**
 * Strings both stores hold alike: a lone UTF-16 surrogate (half of a pair), which PostgreSQL
 * refuses and Redis would keep as replacement bytes, gets one typed error naming the field on
 * both backends, in every input that reaches a store, and nothing is written.
 */
import { expect, it } from 'vitest';
import { ConfigError, ValidationError } from '../../src/errors.js';
import type { JobContext } from '../../src/handler-context.js';
import type { CronJobOptions, JobFilter, JobOptions } from '../../src/types.js';
import { forEachBackend } from '../helpers/backends.js';
import { expectFailure } from './assertions.js';
import { trackRunners } from './processing-support.js';

/** A high surrogate without its low half, and a low one alone. */
const LONE = ['x\ud800', '\udc00y'] as const;
const RULE = 'lone UTF-16 surrogates';

type JobCase = [field: string, make: (s: string) => Record<string, unknown>];
const JOB_CASES: JobCase[] = [
  ['jobType', (s) => ({ jobType: s })],
  ['tags[1]', (s) => ({ tags: ['ok', s] })],
  ['group.id', (s) => ({ group: { id: s } })],
  ['group.tier', (s) => ({ group: { id: 'g', tier: s } })],
  ['idempotencyKey', (s) => ({ idempotencyKey: s })],
  ['deadLetterJobType', (s) => ({ deadLetterJobType: s })],
  ['dependsOn.tags[0]', (s) => ({ dependsOn: { tags: [s] } })],
  ['payload.text', (s) => ({ payload: { text: s } })],
  ['payload.list[0]', (s) => ({ payload: { list: [s] } })],
  ['payload', (s) => ({ payload: { [s]: 1 } })],
];

const cases = <T extends unknown[]>(list: T[]) => list.flatMap((c) => LONE.map((s) => [...c, s] as [...T, string]));

forEachBackend('lone surrogates in input (§7)', (ctx) => {
  const track = trackRunners();

  it.each(cases(JOB_CASES))('addJob and addJobs refuse one in %s and write nothing', async (field, make, lone) => {
    const options = { jobType: 'a', payload: {}, ...make(lone) } as JobOptions;
    await expectFailure(ctx.queue.addJob(options), ValidationError, { field, message: [RULE] });
    await expectFailure(ctx.queue.addJobs([{ jobType: 'a', payload: {} }, options]), ValidationError, {
      field: `jobs[1].${field}`,
      message: [RULE],
    });
    expect(await ctx.queue.getAllJobs()).toEqual([]);
  });

  type FilterCase = [field: string, filter: (s: string) => JobFilter];
  const FILTERS: FilterCase[] = [
    ['filter.jobType', (s) => ({ jobType: s })],
    ['filter.tags.values[0]', (s) => ({ tags: { values: [s], mode: 'any' } })],
  ];

  it.each(cases(FILTERS))('filters refuse one in %s; nothing is changed', async (field, filter, lone) => {
    const id = await ctx.queue.addJob({ jobType: 'a', payload: {}, tags: ['t'] });
    const before = await ctx.queue.getJob(id);
    await expectFailure(ctx.queue.getJobs(filter(lone)), ValidationError, { field, message: [RULE] });
    await expectFailure(ctx.queue.cancelAllUpcomingJobs(filter(lone)), ValidationError, { field });
    await expectFailure(ctx.queue.editAllPendingJobs(filter(lone), { priority: 9 }), ValidationError, { field });
    await expectFailure(ctx.queue.getJobsByTags([lone]), ValidationError, { field: 'tags[0]', message: [RULE] });
    expect(await ctx.queue.getAllJobs()).toEqual([before]);
  });

  it.each(LONE)(
    'editJob refuses one (%j) in tags, payload and deadLetterJobType; the job is unchanged',
    async (lone) => {
      const id = await ctx.queue.addJob({ jobType: 'a', payload: { v: 1 } });
      const before = await ctx.queue.getJob(id);
      await expectFailure(ctx.queue.editJob(id, { tags: [lone] }), ValidationError, {
        field: 'updates.tags[0]',
        message: [RULE],
      });
      await expectFailure(ctx.queue.editJob(id, { payload: { v: lone } }), ValidationError, {
        field: 'updates.payload.v',
      });
      await expectFailure(ctx.queue.editJob(id, { deadLetterJobType: lone }), ValidationError, {
        field: 'updates.deadLetterJobType',
      });
      expect(await ctx.queue.getJob(id)).toEqual(before);
    },
  );

  type CronCase = [field: string, make: (s: string) => Partial<CronJobOptions>];
  const CRON_CASES: CronCase[] = [
    ['scheduleName', (s) => ({ scheduleName: s })],
    ['cronExpression', (s) => ({ cronExpression: `* * * * ${s}` })],
    ['timezone', (s) => ({ timezone: `Europe/Berlin${s}` })],
    ['jobType', (s) => ({ jobType: s })],
    ['tags[0]', (s) => ({ tags: [s] })],
    ['payload.text', (s) => ({ payload: { text: s } })],
  ];

  it.each(cases(CRON_CASES))('addCronJob refuses one in %s and creates no schedule', async (field, make, lone) => {
    const options = { scheduleName: 'nightly', cronExpression: '0 3 * * *', jobType: 'a', payload: {}, ...make(lone) };
    await expectFailure(ctx.queue.addCronJob(options), ValidationError, { field });
    expect(await ctx.queue.listCronJobs()).toEqual([]);
  });

  it.each(LONE)('cron lookups and edits refuse one (%j); the schedule is unchanged', async (lone) => {
    const id = await ctx.queue.addCronJob({
      scheduleName: 'nightly',
      cronExpression: '0 3 * * *',
      jobType: 'a',
      payload: {},
    });
    const before = await ctx.queue.getCronJob(id);
    await expectFailure(ctx.queue.getCronJobByName(lone), ValidationError, { field: 'scheduleName', message: [RULE] });
    await expectFailure(ctx.queue.editCronJob(id, { payload: { text: lone } }), ValidationError, {
      field: 'payload.text',
    });
    await expectFailure(ctx.queue.editCronJob(id, { timezone: lone }), ValidationError, { field: 'updates.timezone' });
    expect(await ctx.queue.getCronJob(id)).toEqual(before);
  });

  it.each(LONE)('tokens refuse one (%j) in tags and in the output; the token stays open', async (lone) => {
    await expectFailure(ctx.queue.createToken({ tags: [lone] }), ValidationError, {
      field: 'tags[0]',
      message: [RULE],
    });
    const { id } = await ctx.queue.createToken();
    await expectFailure(ctx.queue.completeToken(id, { answer: lone }), ValidationError, {
      field: 'output.answer',
      message: [RULE],
    });
    expect(await ctx.queue.getToken(id)).toMatchObject({ status: 'waiting', output: null });
  });

  it.each(LONE)('processor options refuse one (%j) in jobType and workerId', (lone) => {
    const handlers = { a: () => undefined };
    expect(() => ctx.queue.createProcessor(handlers, { jobType: lone })).toThrow(ConfigError);
    expect(() => ctx.queue.createProcessor(handlers, { jobType: ['a', lone] })).toThrow(
      /`jobType\[1\]`.*lone UTF-16 surrogates/,
    );
    expect(() => ctx.queue.createProcessor(handlers, { workerId: lone })).toThrow(/`workerId`.*lone UTF-16 surrogates/);
  });

  it('a handler gets a ValidationError for one in a step name, a step result or its output; nothing is stored', async () => {
    const id = await ctx.queue.addJob({ jobType: 'steps', payload: {} });
    const caught: unknown[] = [];
    const attempt = async (run: () => Promise<unknown>) => {
      try {
        await run();
        caught.push('no error');
      } catch (err) {
        caught.push(err);
      }
    };
    const processor = track(
      ctx.queue.createProcessor({
        steps: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
          await attempt(() => c.run('x\ud800', () => 1));
          await attempt(() => c.run('result', () => ({ text: '\udc00' })));
          await attempt(() => c.setOutput(['\ud800']));
          return 'done';
        },
      }),
    );
    await processor.start();
    expect(caught.map((e) => e instanceof ValidationError && e.field)).toEqual([
      'stepName',
      'step "result".text',
      'output[0]',
    ]);
    expect(await ctx.queue.getJob(id)).toMatchObject({ status: 'completed', output: 'done', stepData: null });
  });
});
