/**
 * Wake-up subscriptions (Backend.subscribeJobAvailable): a queue subscribes on one dedicated
 * connection to the `wake` channel, which scripts that make a job available publish on.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { backendOf } from '../../src/queue.js';
import { REDIS_URL } from '../helpers/backends.js';
import { useRedis, wakeConnections } from './support.js';
import { waitFor } from '../helpers/wait.js';

describe('subscribeJobAvailable on redis', () => {
  const ctx = useRedis();

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
