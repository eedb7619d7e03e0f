/**
 * The Redis suite runs on ioredis 6 (the dev dependency); this smoke test runs the main paths
 * with an ioredis 5 client passed as `client`: add, process, a cron schedule, a timed wait and a
 * waitpoint token. The package installed under the alias `ioredis5` is the real ioredis 5.
 * (`redisConfig`, where the library loads ioredis itself, is covered on ioredis 5 by the
 * installed-package test in test/package.)
 */
import { createRequire } from 'node:module';
import { Redis as Redis5 } from 'ioredis5';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { JobContext } from '../../src/handler-context.js';
import { initJobQueue } from '../../src/queue.js';
import { REDIS_URL, uniqueName } from '../helpers/backends.js';

const T0 = new Date('2030-01-01T00:00:00Z');
const MINUTE = 60_000;
const at = (ms: number) => new Date(T0.getTime() + ms);

let client: Redis5;
const prefix = `${uniqueName('qredis5')}:`;

beforeAll(() => {
  client = new Redis5(REDIS_URL);
});
afterAll(async () => {
  const keys = await client.keys(`${prefix}*`);
  if (keys.length > 0) await client.del(...keys);
  await client.quit();
});

it('runs on an ioredis 5 client', () => {
  const { version } = createRequire(import.meta.url)('ioredis5/package.json') as { version: string };
  expect(version).toMatch(/^5\./);
});

it('adds, processes, schedules cron jobs and resumes waits with an ioredis 5 client', async () => {
  const clock = new ManualClock(T0);
  const queue = initJobQueue({ backend: 'redis', client, keyPrefix: prefix, clock });
  const runs: string[] = [];
  const pass = () =>
    queue
      .createProcessor({
        double: async (p: { n: number }) => ({ doubled: p.n * 2 }),
        tick: async () => void runs.push('tick'),
        flow: async (_p: unknown, _s: AbortSignal, ctx: JobContext) => {
          await ctx.waitFor({ minutes: 5 });
          const token = await ctx.run('token', () => ctx.createToken());
          const answer = await ctx.waitForToken(token.id);
          return answer.ok ? answer.output : null;
        },
      })
      .start();
  try {
    const doubleId = await queue.addJob({ jobType: 'double', payload: { n: 21 } });
    const flowId = await queue.addJob({ jobType: 'flow', payload: {} });
    await queue.addCronJob({ scheduleName: 'every-minute', cronExpression: '* * * * *', jobType: 'tick', payload: {} });

    await pass();
    expect(await queue.getJob(doubleId)).toMatchObject({ status: 'completed', output: { doubled: 42 } });
    expect((await queue.getJob(flowId))?.status).toBe('waiting');

    clock.set(at(5 * MINUTE));
    await pass(); // the cron slot is due and the timed wait is over
    expect(runs).toEqual(['tick']);
    const waiting = await queue.getJob(flowId);
    expect(waiting?.status).toBe('waiting');
    await queue.completeToken(waiting!.waitTokenId!, { approved: true });

    await pass();
    expect(await queue.getJob(flowId)).toMatchObject({ status: 'completed', output: { approved: true } });
  } finally {
    await queue.close();
  }
  expect(client.status).toBe('ready'); // a caller's client stays open
});
