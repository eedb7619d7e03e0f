/**
 * Wake-ups for a Redis user whose ACL grants no channels (Redis 7 gives a new user none unless
 * told otherwise): adds still succeed, each processor reports once that it polls only, and the
 * jobs still run. On a private redis-server, where the test can create users.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initJobQueue } from '../../src/queue.js';
import { startPrivateRedis, type PrivateServer } from '../helpers/private-servers.js';
import { useQueues } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait.js';

describe('redis wake-ups for a user the ACL grants no channels', () => {
  const track = useQueues();
  let server: PrivateServer;

  beforeAll(async () => {
    server = await startPrivateRedis();
    const admin = new Redis({ port: server.port });
    try {
      await admin.call('ACL', 'SETUSER', 'worker', 'on', '>secret', '~*', '+@all', 'resetchannels');
    } finally {
      admin.disconnect();
    }
  }, 30_000);
  afterAll(async () => {
    await server.stop();
  });

  it('adds jobs, reports once that its processor polls only, and runs them', async () => {
    const queue = track(
      initJobQueue({
        backend: 'redis',
        redisConfig: { url: `redis://worker:secret@127.0.0.1:${server.port}`, keyPrefix: 'acl:' },
      }),
    );
    const errors: Error[] = [];
    queue.on('error', (e) => errors.push(e));
    const done: number[] = [];
    const processor = queue.createProcessor(
      { work: async (p: { n: number }) => void done.push(p.n) },
      { pollInterval: 1000 },
    );
    processor.startInBackground();
    try {
      await waitFor(() => errors.length > 0, { what: 'the refused subscription reported' });
      expect(errors[0]!.message).toMatch(/^subscribing to job wake-ups failed; polling only: NOPERM/);

      await queue.addJob({ jobType: 'work', payload: { n: 1 } });
      await queue.addJobs([{ jobType: 'work', payload: { n: 2 } }]);
      await waitFor(() => done.length === 2, { what: 'both jobs, found by polling', timeoutMs: 10_000 });
      expect(done.sort()).toEqual([1, 2]);
      expect(errors).toHaveLength(1);
    } finally {
      await processor.stopAndDrain();
    }
  });
});
