/**
 * One message shape for every refused input (§7): whichever options object is wrong, the error
 * reads "Expected `<field>` to be <rule>, got <the value received>", with the error class of
 * its kind: ConfigError for configuration, ValidationError (naming the field) for an
 * operation's input, RangeError for the handler calls that document it.
 */
import { expect, it } from 'vitest';
import { createQueueDashboard } from '../../src/dashboard/index.js';
import { ConfigError, ValidationError, describeValue } from '../../src/errors.js';
import type { JobContext } from '../../src/handler-context.js';
import { initJobQueue } from '../../src/queue.js';
import type { JobQueueConfig } from '../../src/types.js';
import { forEachBackend } from '../helpers/backends.js';
import { expectFailure } from './assertions.js';
import { trackRunners } from './processing-support.js';

type ErrorClass = typeof ConfigError | typeof ValidationError | RangeErrorConstructor;

/** The whole message, anchored: the field, then a rule, then exactly the value received. */
function shape(field: string, value: unknown): RegExp {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^Expected \`${escape(field)}\` to be .+, got ${escape(describeValue(value))}$`);
}

async function expectShape(action: () => unknown, type: ErrorClass, field: string, value: unknown): Promise<void> {
  const error = await expectFailure(action, type, { message: [shape(field, value)] });
  if (type === ValidationError) expect((error as ValidationError).field).toBe(field);
}

forEachBackend('one message shape for refused input (§7)', (ctx) => {
  const track = trackRunners();

  it('names the field, the rule and the value for every options object that is not an object', async () => {
    const cases: [what: string, action: () => unknown, type: ErrorClass, field: string][] = [
      ['queue configuration', () => initJobQueue('x' as unknown as JobQueueConfig), ConfigError, 'config'],
      ['processor options', () => ctx.queue.createProcessor({}, 'x' as never), ConfigError, 'options'],
      ['supervisor options', () => ctx.queue.createSupervisor('x' as never), ConfigError, 'options'],
      ['dashboard configuration', () => createQueueDashboard('x' as never), ConfigError, 'config'],
      ['job options', () => ctx.queue.addJob('x' as never), ValidationError, 'job'],
      ['job edits', () => ctx.queue.editJob(1, 'x' as never), ValidationError, 'updates'],
      ['job filters', () => ctx.queue.getJobs('x' as never), ValidationError, 'filter'],
      ['cron job options', () => ctx.queue.addCronJob('x' as never), ValidationError, 'options'],
      ['token options', () => ctx.queue.createToken('x' as never), ValidationError, 'options'],
      ['close options', () => ctx.queue.close('x' as never), ValidationError, 'options'],
    ];
    for (const [what, action, type, field] of cases) {
      await expectShape(action, type, field, 'x').catch((err: unknown) => {
        throw new Error(`${what}: ${err instanceof Error ? err.message : String(err)}`);
      });
    }
  });

  it('words operation input checks the same way: cron edits, token ids, token timeouts, cron expressions', async () => {
    const id = await ctx.queue.addCronJob({
      scheduleName: 's',
      cronExpression: '* * * * *',
      jobType: 'a',
      payload: {},
    });
    await expectShape(() => ctx.queue.editCronJob(id, 'x' as never), ValidationError, 'updates', 'x');
    await expectShape(() => ctx.queue.getToken('nope'), ValidationError, 'tokenId', 'nope');
    await expectShape(() => ctx.queue.createToken({ timeout: '5 minutes' }), ValidationError, 'timeout', '5 minutes');
    await expectShape(
      () => ctx.queue.addCronJob({ scheduleName: 't', cronExpression: '61 * * * *', jobType: 'a', payload: {} }),
      ValidationError,
      'cronExpression',
      '61 * * * *',
    );
    await expectShape(
      () =>
        ctx.queue.addCronJob({
          scheduleName: 't',
          cronExpression: '* * * * *',
          timezone: 'Mars/Olympus',
          jobType: 'a',
          payload: {},
        }),
      ValidationError,
      'timezone',
      'Mars/Olympus',
    );
  });

  it('words the handler context checks the same way, keeping their documented error classes', async () => {
    await ctx.queue.addJob({ jobType: 'a', payload: {} });
    const caught: Record<string, unknown> = {};
    const attempt = async (name: string, call: () => unknown) => {
      try {
        await call();
      } catch (err) {
        caught[name] = err;
      }
    };
    await track(
      ctx.queue.createProcessor({
        a: async (_p: unknown, _s: AbortSignal, c: JobContext) => {
          await attempt('setProgress', () => c.setProgress(150));
          await attempt('prolong', () => c.prolong(-1));
          await attempt('stepName', () => c.run('', () => 1));
          await attempt('waitFor', () => c.waitFor({ minutes: -1 }));
        },
      }),
    ).start();
    const expectCaught = (name: string, type: ErrorClass, field: string, value: unknown) =>
      expectShape(
        () => {
          throw caught[name];
        },
        type,
        field,
        value,
      );
    await expectCaught('setProgress', RangeError, 'percent', 150);
    await expectCaught('prolong', RangeError, 'ms', -1);
    await expectCaught('stepName', ValidationError, 'stepName', '');
    await expectCaught('waitFor', ValidationError, 'duration.minutes', -1);
  });
});
