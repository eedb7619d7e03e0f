/**
 * Driver ownership and backend-specific operations on Redis (SPEC §2.1 rule 3, §4.1 rule 1, §7).
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { REDIS_URL } from '../helpers/backends.js';
import { UnsupportedOnBackendError } from '../../src/errors.js';
import { backendOf, initJobQueue } from '../../src/queue.js';
import type { Queryable } from '../../src/types.js';
import { useRedis, wakeConnections } from './support.js';
import { waitFor } from '../helpers/wait.js';

const fakeDb: Queryable = {
  query: async () => {
    throw new Error('the redis backend must never call db.query');
  },
};

describe('redis driver access and ownership', () => {
  const ctx = useRedis();

  it('refuses the db option of addJob and addJobs with UnsupportedOnBackendError and writes nothing', async () => {
    const q = ctx.queue();
    await expect(q.addJob({ jobType: 'x', payload: {} }, { db: fakeDb })).rejects.toBeInstanceOf(
      UnsupportedOnBackendError,
    );
    await expect(q.addJobs([{ jobType: 'x', payload: {} }], { db: fakeDb })).rejects.toThrow(/postgres backend/);
    expect(await ctx.keys()).toEqual([]);
  });

  it('refuses getPool with UnsupportedOnBackendError and returns its client from getRedisClient', () => {
    const q = ctx.queue();
    expect(() => q.getPool()).toThrow(UnsupportedOnBackendError);
    expect(q.getRedisClient()).toBe(ctx.redis);
  });

  it('never closes a caller’s client, but closes its own wake-up connections', async () => {
    const client = new Redis(REDIS_URL);
    try {
      const q = initJobQueue({ backend: 'redis', client, keyPrefix: ctx.prefix });
      await q.addJob({ jobType: 'x', payload: {} });
      await backendOf(q).subscribeJobAvailable(() => {});
      await waitFor(async () => (await wakeConnections(client, ctx.prefix)) === 1, { what: 'the wake-up connection' });
      await q.close();
      expect(client.status).toBe('ready');
      expect(await client.ping()).toBe('PONG');
      await waitFor(async () => (await wakeConnections(client, ctx.prefix)) === 0, {
        what: 'the wake-up connection to close',
      });
    } finally {
      await client.quit();
    }
  });

  it('closes the client it created from redisConfig', async () => {
    const q = initJobQueue({ backend: 'redis', redisConfig: { url: REDIS_URL, keyPrefix: ctx.prefix } });
    await q.addJob({ jobType: 'x', payload: {} });
    const client = q.getRedisClient() as Redis;
    expect(client.status).toBe('ready');
    await q.close();
    expect(client.status).toBe('end');
    await q.close(); // a second close is harmless
  });

  it('uses the db and host settings of redisConfig', async () => {
    const q = initJobQueue({
      backend: 'redis',
      redisConfig: { host: '127.0.0.1', port: 6379, db: 9, keyPrefix: ctx.prefix },
    });
    // duplicate() so db 9 wins over a database index in REDIS_URL.
    const raw = ctx.redis.duplicate({ db: 9 });
    try {
      await q.addJob({ jobType: 'x', payload: {} });
      expect(await raw.hlen(`${ctx.prefix}{q}:jobs`)).toBe(1);
      expect(await ctx.redis.exists(`${ctx.prefix}{q}:jobs`)).toBe(0);
    } finally {
      await q.close();
      const keys = await raw.keys(`${ctx.prefix}*`);
      if (keys.length > 0) await raw.del(...keys);
      await raw.quit();
    }
  });
});
