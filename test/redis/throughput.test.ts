/**
 * The throughput counters on Redis (includes/throughput.lua): one hash of per-minute fields that
 * the counting scripts keep to about an hour by themselves, so the hash stays small without a
 * supervisor, and that expires once nothing has been counted for an hour.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { redisKeys } from '../../src/backends/redis/keys.js';
import { completeJob, failJob } from '../conformance/job-states.js';
import { useRedis } from './support.js';

const MINUTE = 60_000;
const T0 = new Date('2030-01-01T10:00:00.000Z');
const minuteOf = (time: Date) => Math.floor(time.getTime() / MINUTE);

describe('throughput counters (redis)', () => {
  const ctx = useRedis();

  it('keeps the fields of about an hour: the first count of a minute removes the older ones', async () => {
    const clock = new ManualClock(T0);
    const queue = ctx.queue({ clock });
    const key = redisKeys(ctx.prefix).throughput;
    await completeJob(queue, await queue.addJob({ jobType: 'a', payload: {} }));
    await failJob(queue, await queue.addJob({ jobType: 'b', payload: {} }));
    expect((await ctx.redis.hkeys(key)).sort()).toEqual([`${minuteOf(T0)}:completed`, `${minuteOf(T0)}:failed`]);

    clock.advance(60 * MINUTE);
    await completeJob(queue, await queue.addJob({ jobType: 'c', payload: {} }));
    // 60 minutes later: T0's minute is still within the kept 61.
    expect(await ctx.redis.hlen(key)).toBe(3);

    clock.advance(MINUTE);
    await completeJob(queue, await queue.addJob({ jobType: 'd', payload: {} }));
    expect((await ctx.redis.hkeys(key)).sort()).toEqual([
      `${minuteOf(T0) + 60}:completed`,
      `${minuteOf(T0) + 61}:completed`,
    ]);
    expect(await queue.getThroughput({ minutes: 2 })).toEqual([
      { minute: new Date(T0.getTime() + 60 * MINUTE), completed: 1, failed: 0 },
      { minute: new Date(T0.getTime() + 61 * MINUTE), completed: 1, failed: 0 },
    ]);
  });

  it('expires the key about an hour after the last count', async () => {
    const queue = ctx.queue({ clock: new ManualClock(T0) });
    await completeJob(queue, await queue.addJob({ jobType: 'a', payload: {} }));
    const ttl = await ctx.redis.pttl(redisKeys(ctx.prefix).throughput);
    expect(ttl).toBeGreaterThan(61 * MINUTE);
    expect(ttl).toBeLessThanOrEqual(62 * MINUTE);
  });
});
