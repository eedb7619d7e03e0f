/**
 * Wake-up subscriptions (Backend.subscribeJobAvailable): a queue subscribes on one dedicated
 * connection to the `wake` channel, which scripts that make a job available publish on.
 */
import { Redis } from 'ioredis';
import { describe, expect, it, onTestFinished } from 'vitest';
import { backendOf, initJobQueue } from '../../src/queue.js';
import { deleteKeys, REDIS_URL, useQueues } from '../helpers/backends.js';
import { useRedis, wakeConnections } from './support.js';
import { waitFor } from '../helpers/wait.js';

describe('subscribeJobAvailable on redis', () => {
  const ctx = useRedis();
  const track = useQueues();

  it('calls the listener when another queue instance adds a job, until unsubscribed', async () => {
    const listening = ctx.queue();
    const adding = ctx.queue();
    let calls = 0;
    const unsubscribe = await backendOf(listening).subscribeJobAvailable(() => calls++);
    // Once subscribed, the listener is called: what was added before is looked for.
    await waitFor(() => calls === 1, { what: 'the call once subscribed' });
    expect(await wakeConnections(ctx.redis, ctx.prefix)).toBe(1);

    await adding.addJob({ jobType: 'x', payload: {} });
    await waitFor(() => calls === 2, { what: 'the wake-up of the add' });

    await unsubscribe();
    await waitFor(async () => (await wakeConnections(ctx.redis, ctx.prefix)) === 0, {
      what: 'the connection to close',
    });
    await adding.addJob({ jobType: 'x', payload: {} });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls).toBe(2);
  });

  it('wakes every subscriber, in this process and in others, on one connection per queue', async () => {
    const here = ctx.queue();
    const elsewhere = ctx.queue(); // another queue instance: another process, as the store sees it
    const calls = [0, 0, 0];
    await backendOf(here).subscribeJobAvailable(() => calls[0]!++);
    await backendOf(here).subscribeJobAvailable(() => calls[1]!++);
    await backendOf(elsewhere).subscribeJobAvailable(() => calls[2]!++);
    await waitFor(() => calls.every((c) => c === 1), { what: 'every call once subscribed' });
    expect(await wakeConnections(ctx.redis, ctx.prefix)).toBe(2);

    await ctx.queue().addJobs([
      { jobType: 'x', payload: {} },
      { jobType: 'y', payload: {} },
    ]);
    await waitFor(() => calls.every((c) => c === 2), { what: 'every subscriber woken by the one add' });
  });

  it('hears the adds of its own database only, though channels are server-wide', async () => {
    const db = ctx.redis.options.db ?? 0;
    const otherDb = db === 0 ? 1 : 0;
    const url = new URL(REDIS_URL);
    url.pathname = `/${otherDb}`;
    // The same prefix on another database of the same server: another store.
    const elsewhere = track(
      initJobQueue({ backend: 'redis', redisConfig: { url: url.toString() }, keyPrefix: ctx.prefix }),
    );
    onTestFinished(async () => {
      const admin = new Redis(url.toString());
      await deleteKeys(admin, `${ctx.prefix}*`);
      await admin.quit();
    });
    const here = ctx.queue();
    const calls = { here: 0, elsewhere: 0 };
    await backendOf(here).subscribeJobAvailable(() => calls.here++);
    await backendOf(elsewhere).subscribeJobAvailable(() => calls.elsewhere++);
    await waitFor(() => calls.here === 1 && calls.elsewhere === 1, { what: 'both calls once subscribed' });
    // One channel per database, each with its queue's connection.
    const channels = (await ctx.redis.call('PUBSUB', 'CHANNELS', `${ctx.prefix}*`)) as string[];
    expect(channels).toHaveLength(2);

    await elsewhere.addJob({ jobType: 'x', payload: {} });
    await waitFor(() => calls.elsewhere === 2, { what: 'the wake-up of the add on the other database' });
    await here.addJob({ jobType: 'x', payload: {} });
    await waitFor(() => calls.here === 2, { what: 'the wake-up of the add on this database' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls).toEqual({ here: 2, elsewhere: 2 });
  });

  it('keeps listening after its connection is killed', async () => {
    const q = ctx.queue();
    let calls = 0;
    await backendOf(q).subscribeJobAvailable(() => calls++);
    await waitFor(() => calls === 1, { what: 'the call once subscribed' });

    const admin = new Redis(REDIS_URL);
    try {
      const killed = await admin.call(
        'CLIENT',
        'KILL',
        'SKIPME',
        'yes',
        'ID',
        await wakeConnectionId(admin, ctx.prefix),
      );
      expect(killed).toBe(1);
    } finally {
      await admin.quit();
    }
    // Subscribed again, the listener is called, for what was added while the connection was down.
    await waitFor(async () => (await wakeConnections(ctx.redis, ctx.prefix)) === 1 && calls === 2, {
      what: 'the reconnection and its call',
    });
    await q.addJob({ jobType: 'x', payload: {} });
    await waitFor(() => calls === 3, { what: 'a wake-up after the reconnection' });
  });
});

async function wakeConnectionId(client: Redis, prefix: string): Promise<string> {
  const list = (await client.client('LIST')) as string;
  const line = list.split('\n').find((l) => l.includes(` name=queuedev-wake:${prefix} `));
  const id = line?.match(/^id=(\d+)/)?.[1];
  if (!id) throw new Error('no wake-up connection found');
  return id;
}
