/**
 * `redisConfig.db` (§2.1): ioredis selects the database on connect, but when the server refuses
 * the index it only emits an error and runs every command in db 0. The queue must fail instead:
 * every operation rejects with a ConfigError, and nothing reaches db 0.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { initJobQueue } from '../../src/queue.js';
import { REDIS_URL, deleteKeys, uniqueName } from '../helpers/backends.js';

const url = new URL(REDIS_URL);
const server = { host: url.hostname, port: Number(url.port || 6379) };
/** The database of the test run (REDIS_URL's path), and one no server has. */
const testDb = Number(url.pathname.slice(1) || 0);
const MISSING_DB = 100_000;

describe('redisConfig.db', () => {
  const prefix = `${uniqueName('qtest')}:`;
  const db0 = new Redis({ ...server, db: 0 });
  const own = new Redis({ ...server, db: testDb });

  afterAll(async () => {
    // Also db 0: that is where a queue ignoring its refused database would have written.
    await Promise.all([deleteKeys(own, `${prefix}*`), deleteKeys(db0, `${prefix}*`)]);
    await Promise.all([db0.quit(), own.quit()]);
  });

  async function keysIn(client: Redis): Promise<string[]> {
    const [, keys] = await client.scan('0', 'MATCH', `${prefix}*`, 'COUNT', 100_000);
    return keys;
  }

  it('fails every operation with a ConfigError when the server has no such database, and writes nothing to db 0', async () => {
    const queue = initJobQueue({ backend: 'redis', redisConfig: { ...server, db: MISSING_DB }, keyPrefix: prefix });
    try {
      const expected = {
        name: 'ConfigError',
        message: expect.stringMatching(/`redisConfig\.db`.*100000.*out of range/i),
      };
      await expect(queue.addJob({ jobType: 'a', payload: {} })).rejects.toMatchObject(expected);
      await expect(queue.addJob({ jobType: 'a', payload: {} })).rejects.toBeInstanceOf(ConfigError);
      await expect(queue.getAllJobs()).rejects.toBeInstanceOf(ConfigError);
      await expect(queue.getToken('wp_00000000-0000-0000-0000-000000000000')).rejects.toBeInstanceOf(ConfigError);
      expect(await keysIn(db0)).toEqual([]);
    } finally {
      await queue.close();
    }
  });

  it('works in a database the server has, and only there', async () => {
    if (testDb === 0) return; // REDIS_URL names db 0: nothing to tell apart
    const queue = initJobQueue({ backend: 'redis', redisConfig: { ...server, db: testDb }, keyPrefix: prefix });
    try {
      const id = await queue.addJob({ jobType: 'a', payload: {} });
      expect((await queue.getJob(id))?.status).toBe('pending');
      expect(await keysIn(own)).not.toEqual([]);
      expect(await keysIn(db0)).toEqual([]);
    } finally {
      await queue.close();
    }
  });
});
