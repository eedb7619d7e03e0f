/**
 * Wake-up subscriptions (Backend.subscribeJobAvailable): a dedicated connection blocks on the
 * `wake` list, which scripts that make a job available push to.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { backendOf } from '../../src/queue.js';
import { REDIS_URL } from '../helpers/backends.js';
import { useRedis, wakeConnections } from './support.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A connection in MONITOR mode. ioredis enters monitor mode a tick after MONITOR's OK, so on a
 * busy server (other test files run beside this one) lines of commands sent before monitoring
 * began can arrive first, and ioredis reports each as a "Command queue state error". Those lines
 * precede everything the test watches, so they are dropped; any other error fails the start.
 */
async function monitorConnection(): Promise<Redis> {
  const monitor = new Redis(REDIS_URL, { monitor: true });
  await new Promise<void>((resolve, reject) => {
    const beforeMonitoring = (err: Error) => {
      if (!err.message.startsWith('Command queue state error')) reject(err);
    };
    monitor.on('error', beforeMonitoring);
    monitor.once('monitoring', () => {
      monitor.off('error', beforeMonitoring);
      resolve();
    });
  });
  return monitor;
}

describe('subscribeJobAvailable on redis', () => {
  const ctx = useRedis();

  it('calls the listener when another queue instance adds a job, until unsubscribed', async () => {
    const listening = ctx.queue();
    const adding = ctx.queue();
    let calls = 0;
    const unsubscribe = await backendOf(listening).subscribeJobAvailable(() => calls++);
    await waitFor(async () => (await wakeConnections(ctx.redis, ctx.prefix)) === 1, { what: 'the wake-up connection' });

    await adding.addJob({ jobType: 'x', payload: {} });
    await waitFor(async () => calls === 1, { what: 'the first wake-up' });

    await unsubscribe();
    await waitFor(async () => (await wakeConnections(ctx.redis, ctx.prefix)) === 0, {
      what: 'the connection to close',
    });
    await adding.addJob({ jobType: 'x', payload: {} });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(calls).toBe(1);
    // The signal stays for the next subscriber; it never piles up.
    expect(await ctx.redis.llen(`${ctx.prefix}{q}:wake`)).toBe(1);
  });

  it("writes the woken listener's command before the next BLPOP", async () => {
    const listening = ctx.queue();
    const adding = ctx.queue();
    const marker = `${ctx.prefix}marker`;
    // Like a processor: the listener resolves a promise, and a later callback sends the claim.
    await backendOf(listening).subscribeJobAvailable(() => {
      void Promise.resolve()
        .then(() => undefined)
        .then(() => ctx.redis.exists(marker));
    });
    await waitFor(async () => (await wakeConnections(ctx.redis, ctx.prefix)) === 1, { what: 'the wake-up connection' });

    const monitor = await monitorConnection();
    const seen: string[] = [];
    try {
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (!source.includes('lua') && args.some((a) => a.startsWith(ctx.prefix))) seen.push(args[0]!.toLowerCase());
      });
      await adding.addJob({ jobType: 'x', payload: {} });
      await waitFor(async () => seen.includes('exists') && seen.lastIndexOf('blpop') > seen.indexOf('evalsha'), {
        what: 'the listener command and the next BLPOP',
      });
    } finally {
      monitor.disconnect();
    }
    const afterAdd = seen.slice(seen.indexOf('evalsha') + 1);
    expect(afterAdd.filter((c) => c === 'exists' || c === 'blpop').slice(0, 2)).toEqual(['exists', 'blpop']);
  });

  it('keeps listening after its connection is killed', async () => {
    const q = ctx.queue();
    let calls = 0;
    await backendOf(q).subscribeJobAvailable(() => calls++);
    await waitFor(async () => (await wakeConnections(ctx.redis, ctx.prefix)) === 1, { what: 'the wake-up connection' });

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
    await waitFor(async () => (await wakeConnections(ctx.redis, ctx.prefix)) === 1, { what: 'the reconnection' });
    await q.addJob({ jobType: 'x', payload: {} });
    await waitFor(async () => calls >= 1, { what: 'a wake-up after the reconnection' });
  });
});

async function wakeConnectionId(client: Redis, prefix: string): Promise<string> {
  const list = (await client.client('LIST')) as string;
  const line = list.split('\n').find((l) => l.includes(` name=queuedev-wake:${prefix} `));
  const id = line?.match(/^id=(\d+)/)?.[1];
  if (!id) throw new Error('no wake-up connection found');
  return id;
}
