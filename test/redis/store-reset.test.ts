/**
 * A Redis store wiped under a running queue (issue 7 item 10): the queue notices through the
 * store identity key, reports a StoreResetError on its `error` event (on the console when nothing
 * listens), and never hands out a job or schedule id it had already used.
 */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreResetError } from '../../src/errors.js';
import { initJobQueue, type JobQueue } from '../../src/queue.js';
import { deleteKeys } from '../helpers/backends.js';
import { startPrivateRedis, type PrivateServer } from '../helpers/private-servers.js';
import { useRedis } from './support.js';

function collectErrors(queue: JobQueue): Error[] {
  const errors: Error[] = [];
  queue.on('error', (e) => errors.push(e));
  return errors;
}

const job = (n: number) => ({ jobType: 'x', payload: { n } });
const schedule = (name: string) => ({ scheduleName: name, cronExpression: '* * * * *', jobType: 'x', payload: {} });

describe('a wiped Redis store', () => {
  const ctx = useRedis();
  let server: PrivateServer | undefined;
  let consoleError: ReturnType<typeof vi.spyOn>;

  afterEach(async () => {
    consoleError?.mockRestore();
    await server?.stop();
    server = undefined;
  });

  it('is reported once and never reuses an id when the queue’s keys are deleted under it', async () => {
    consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const queue = ctx.queue();
    const errors = collectErrors(queue);
    const before = await queue.addJobs([job(1), job(2), job(3)]);
    const scheduleBefore = await queue.addCronJob(schedule('a'));
    expect(before).toEqual([1, 2, 3]);

    await deleteKeys(ctx.redis, `${ctx.prefix}*`);

    const after = await queue.addJob(job(4));
    expect(after).toBeGreaterThan(3);
    expect(await queue.getJob(1)).toBeNull();
    expect((await queue.getJob(after))?.payload).toEqual({ n: 4 });
    expect(await queue.addCronJob(schedule('b'))).toBeGreaterThan(scheduleBefore);
    await queue.addJob(job(5));

    expect(errors).toHaveLength(1);
    const reset = errors[0] as StoreResetError;
    expect(reset).toBeInstanceOf(StoreResetError);
    expect(reset.code).toBe('STORE_RESET');
    expect(reset.foundStoreId).toBeNull();
    expect(reset.message).toContain(ctx.prefix);
    // The program listens: nothing is written twice.
    expect(consoleError).not.toHaveBeenCalled();
  });

  it('is written to the console once, as an error, when nothing listens for errors', async () => {
    consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const queue = ctx.queue();
    await queue.addJobs([job(1), job(2)]);
    await deleteKeys(ctx.redis, `${ctx.prefix}*`);
    await queue.addJob(job(3));
    await queue.addJob(job(4));
    expect(consoleError.mock.calls).toEqual([
      [expect.stringMatching(/^\[queuedev\] The Redis store .*It was wiped or replaced/)],
    ]);
    expect(String(consoleError.mock.calls[0]?.[0])).toContain(ctx.prefix);
  });

  it('is noticed by a processor’s claim as well', async () => {
    consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const queue = ctx.queue();
    const errors = collectErrors(queue);
    await queue.addJobs([job(1), job(2)]);
    expect(await queue.createProcessor({ x: async () => {} }).start()).toBe(2);
    await deleteKeys(ctx.redis, `${ctx.prefix}*`);
    expect(await queue.createProcessor({ x: async () => {} }).start()).toBe(0);
    expect(errors.map((e) => e.constructor)).toEqual([StoreResetError]);
    expect(await queue.addJob(job(3))).toBe(3);
  });

  it('is noticed after FLUSHDB of a server the queue uses, and ids go on above the old ones', async () => {
    consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    server = await startPrivateRedis();
    const client = new Redis({ port: server.port });
    try {
      const queue = initJobQueue({ backend: 'redis', client, keyPrefix: 'app:' });
      const errors = collectErrors(queue);
      const ids = await queue.addJobs([job(1), job(2)]);
      await client.flushdb();
      const next = await queue.addJob(job(3));
      expect(next).toBeGreaterThan(Math.max(...ids));
      expect(errors).toHaveLength(1);
      expect(errors[0]).toBeInstanceOf(StoreResetError);
      await queue.close();
    } finally {
      client.disconnect();
    }
  });

  it('stays quiet for a store shared by two queues, and names the store id found when it was replaced', async () => {
    consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const first = ctx.queue();
    const second = ctx.queue();
    const firstErrors = collectErrors(first);
    const secondErrors = collectErrors(second);
    await first.addJob(job(1));
    expect(await second.addJob(job(2))).toBe(2);
    expect([...firstErrors, ...secondErrors]).toEqual([]);

    await ctx.redis.hset(`${ctx.prefix}{q}:meta`, 'storeId', 'another-store');
    expect(await first.addJob(job(3))).toBe(3);
    expect(firstErrors).toHaveLength(1);
    expect((firstErrors[0] as StoreResetError).foundStoreId).toBe('another-store');
  });
});
