/**
 * A Redis outage: with the server gone, a processor's stopAndDrain resolves as soon as nothing
 * runs, and close() settles (ioredis would hold QUIT in its offline queue for ever). Runs on a
 * private redis-server that the test kills.
 */
import type { Redis } from 'ioredis';
import { afterEach, expect, it } from 'vitest';
import { initJobQueue } from '../../src/queue.js';
import { startPrivateRedis, type PrivateServer } from '../helpers/private-servers.js';
import { sleep, waitFor } from '../helpers/wait.js';

let server: PrivateServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** Resolves with `what` when `promise` settles first, else with 'still pending' after `ms`. */
function settlesWithin(promise: Promise<unknown>, ms: number, what: string): Promise<string> {
  return Promise.race([promise.then(() => what), sleep(ms).then(() => 'still pending')]);
}

it('stopAndDrain and close settle promptly after Redis went away', { timeout: 60_000 }, async () => {
  server = await startPrivateRedis();
  const queue = initJobQueue({
    backend: 'redis',
    redisConfig: { url: `redis://127.0.0.1:${server.port}`, keyPrefix: 'outage:' },
  });
  const errors: Error[] = [];
  const processor = queue.createProcessor(
    { work: async () => 'done' },
    { pollInterval: 50, onError: (e) => errors.push(e) },
  );
  processor.startInBackground();
  const id = await queue.addJob({ jobType: 'work', payload: {} });
  await waitFor(async () => (await queue.getJob(id))?.status === 'completed', {
    timeoutMs: 10_000,
    what: 'the job to complete',
  });

  await server.stop();
  await waitFor(() => (queue.getRedisClient() as Redis).status === 'reconnecting', {
    timeoutMs: 10_000,
    what: 'the client to notice the outage',
  });
  // Let the loop start a claim that cannot be answered.
  await sleep(200);
  // ioredis gives up a command after about ten seconds of retries: both must settle well before.
  expect(await settlesWithin(processor.stopAndDrain(30_000), 5000, 'drained')).toBe('drained');
  expect(processor.isRunning()).toBe(false);
  expect(await settlesWithin(queue.close(), 5000, 'closed')).toBe('closed');
  expect(() => queue.getRedisClient()).toThrow('closed');
});
