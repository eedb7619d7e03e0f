/**
 * Unknown option keys are refused everywhere (§7), with a "did you mean" hint for a near miss,
 * instead of being ignored while the default applies; options that decide the same thing twice,
 * or belong to the other backend, are refused at initJobQueue.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, ValidationError } from '../../src/errors.js';
import type { JobContext } from '../../src/handler-context.js';
import { initJobQueue } from '../../src/queue.js';
import type { CronJobOptions, JobOptions, JobQueueConfig } from '../../src/types.js';
import { PG_URL, REDIS_URL, forEachBackend } from '../helpers/backends.js';
import { expectFailure } from './assertions.js';
import { trackRunners } from './processing-support.js';

type JobCase = [label: string, extra: Record<string, unknown>, field: string, hint: string | null];
const JOB_CASES: JobCase[] = [
  ['a misspelt option', { maxAttempt: 5 }, 'maxAttempt', 'maxAttempts'],
  ['an option in the wrong case', { runat: new Date() }, 'runat', 'runAt'],
  ['a shortened option', { timeout: 1000 }, 'timeout', 'timeoutMs'],
  ['an unrelated option', { color: 'red' }, 'color', null],
  ['an unknown dependsOn key', { dependsOn: { jobId: [1] } }, 'dependsOn.jobId', 'jobIds'],
  ['an unknown group key', { group: { id: 'g', teir: 'x' } }, 'group.teir', 'tier'],
];

function message(field: string, hint: string | null): string[] {
  return [`\`${field}\``, ...(hint ? [`Did you mean \`${hint}\`?`] : [])];
}

forEachBackend('unknown option keys (§7)', (ctx) => {
  const track = trackRunners();

  it.each(JOB_CASES)('addJob and addJobs refuse %s and write nothing', async (_label, extra, field, hint) => {
    const job = { jobType: 'a', payload: {}, ...extra } as JobOptions;
    const error = await expectFailure(ctx.queue.addJob(job), ValidationError, { field, message: message(field, hint) });
    if (!hint) expect(error.message).not.toContain('Did you mean');
    await expectFailure(ctx.queue.addJobs([{ jobType: 'a', payload: {} }, job]), ValidationError, {
      field: `jobs[1].${field}`,
      message: message(`jobs[1].${field}`, hint),
    });
    expect(await ctx.queue.getAllJobs()).toEqual([]);
  });

  it('a key holding undefined counts as absent', async () => {
    const id = await ctx.queue.addJob({ jobType: 'a', payload: {}, ...{ maxAttempt: undefined } });
    expect((await ctx.queue.getJob(id))?.maxAttempts).toBe(3);
  });

  it('addJob and addJobs refuse unknown keys in their second argument', async () => {
    const add = { bd: {} } as never;
    await expectFailure(ctx.queue.addJob({ jobType: 'a', payload: {} }, add), ValidationError, {
      field: 'addOptions.bd',
      message: message('addOptions.bd', 'db'),
    });
    await expectFailure(ctx.queue.addJobs([{ jobType: 'a', payload: {} }], add), ValidationError, {
      field: 'addOptions.bd',
    });
    expect(await ctx.queue.getAllJobs()).toEqual([]);
  });

  it('addCronJob refuses unknown keys, including job options schedules do not have', async () => {
    const base = { scheduleName: 'nightly', cronExpression: '0 3 * * *', jobType: 'a', payload: {} };
    await expectFailure(ctx.queue.addCronJob({ ...base, timeZone: 'UTC' } as CronJobOptions), ValidationError, {
      field: 'timeZone',
      message: message('timeZone', 'timezone'),
    });
    await expectFailure(ctx.queue.addCronJob({ ...base, idempotencyKey: 'k' } as CronJobOptions), ValidationError, {
      field: 'idempotencyKey',
    });
    expect(await ctx.queue.listCronJobs()).toEqual([]);
  });

  it('createToken refuses unknown keys on the queue and in a handler', async () => {
    await expectFailure(ctx.queue.createToken({ timeOut: '1h' } as never), ValidationError, {
      field: 'timeOut',
      message: message('timeOut', 'timeout'),
    });
    await ctx.queue.addJob({ jobType: 'a', payload: {} });
    let caught: unknown;
    const processor = track(
      ctx.queue.createProcessor({
        a: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
          caught = await c.createToken({ tag: ['x'] } as never).catch((e: unknown) => e);
        },
      }),
    );
    await processor.start();
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).message).toContain('Did you mean `tags`?');
  });

  it('ctx.waitFor refuses an unknown unit with a hint', async () => {
    await ctx.queue.addJob({ jobType: 'a', payload: {} });
    let caught: unknown;
    await track(
      ctx.queue.createProcessor({
        a: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
          try {
            await c.waitFor({ minute: 5 } as never);
          } catch (err) {
            caught = err;
          }
        },
      }),
    ).start();
    expect(caught).toMatchObject({
      field: 'duration.minute',
      message: expect.stringContaining('Did you mean `minutes`?'),
    });
  });

  it('processor and supervisor options name the nearest known option', () => {
    expect(() => ctx.queue.createProcessor({}, { concurency: 2 } as never)).toThrow(
      /`concurency`.*Did you mean `concurrency`\?/,
    );
    expect(() => ctx.queue.createSupervisor({ intervalMS: 10 } as never)).toThrow(
      /`intervalMS`.*Did you mean `intervalMs`\?/,
    );
    expect(() => ctx.queue.createSupervisor({ interval: 10 } as never)).toThrow(ConfigError);
  });
});

describe('queue configuration keys (§2.1, §7)', () => {
  const init = (config: unknown) => () => initJobQueue(config as JobQueueConfig);
  const pool = { query: () => undefined };
  const client = { defineCommand: () => undefined };

  it.each([
    ['a misspelt top-level option', { databaseConfig: {}, shema: 'x' }, ['`shema`', 'Did you mean `schema`?']],
    [
      'a misspelt databaseConfig option',
      { databaseConfig: { connectionstring: 'postgres://x' } },
      ['`databaseConfig.connectionstring`', '`connectionString`'],
    ],
    [
      'a misspelt ssl option',
      { databaseConfig: { ssl: { rejectUnauthorised: false } } },
      ['`databaseConfig.ssl.rejectUnauthorised`', '`rejectUnauthorized`'],
    ],
    ['a misspelt redisConfig option', { backend: 'redis', redisConfig: { database: 3 } }, ['`redisConfig.database`']],
    [
      'a misspelt redis tls option',
      { backend: 'redis', redisConfig: { tls: { cert: 'x', keys: 'y' } } },
      ['`redisConfig.tls.keys`', '`key`'],
    ],
    ['pool with databaseConfig', { pool, databaseConfig: {} }, ['`pool`', '`databaseConfig`', 'not both']],
    [
      'client with redisConfig',
      { backend: 'redis', client, redisConfig: {} },
      ['`client`', '`redisConfig`', 'not both'],
    ],
    [
      'keyPrefix twice',
      { backend: 'redis', redisConfig: { keyPrefix: 'a:' }, keyPrefix: 'b:' },
      ['`keyPrefix`', '`redisConfig.keyPrefix`'],
    ],
    ['schema on redis', { backend: 'redis', redisConfig: {}, schema: 'jobs' }, ['`schema`', 'postgres backend']],
    ['pool on redis', { backend: 'redis', redisConfig: {}, pool }, ['`pool`', 'postgres backend']],
    ['keyPrefix on postgres', { databaseConfig: {}, keyPrefix: 'app:' }, ['`keyPrefix`', "backend: 'redis'"]],
    ['pglite on redis', { backend: 'redis', redisConfig: {}, pglite: {} }, ['`pglite`', 'postgres backend']],
    ['migrate on redis', { backend: 'redis', redisConfig: {}, migrate: true }, ['`migrate`', 'postgres backend']],
    ['a misspelt migrate', { pglite: {}, migrat: true }, ['`migrat`', 'Did you mean `migrate`?']],
    ['redisConfig without backend: redis', { redisConfig: { url: REDIS_URL } }, ['`redisConfig`', "backend: 'redis'"]],
  ])('initJobQueue refuses %s with a ConfigError', async (_label, config, fragments) => {
    await expectFailure(init(config), ConfigError, { message: fragments });
  });

  it('accepts every documented option of each backend', async () => {
    const queues = [
      initJobQueue({
        backend: 'postgres',
        databaseConfig: { connectionString: PG_URL },
        schema: 'public',
        verbose: false,
        clock: { now: () => new Date() },
        maxPayloadBytes: 1_048_576,
      }),
      initJobQueue({
        backend: 'redis',
        redisConfig: { url: REDIS_URL, keyPrefix: 'qtest_keys:' },
        verbose: false,
        maxPayloadBytes: 65_536,
      }),
      initJobQueue({ backend: 'postgres', pglite: { dataDir: undefined }, migrate: false, schema: 'public' }),
    ];
    await Promise.all(queues.map((q) => q.close()));
  });
});
