/**
 * Issue 3 on Redis: the server shuts down (SHUTDOWN NOSAVE) under a running background processor,
 * stays down about two seconds, and a new server starts on the same port.
 *
 * This Redis keeps nothing on disk, so the restart EMPTIES the store: the jobs added before it
 * are gone. No queue can keep what its store threw away, so the test does not ask for those
 * jobs back. What it asserts is what remains meaningful:
 * - the processor reports the outage through onError and the `error` event, and keeps running;
 * - the queue reports the emptied store once (StoreResetError on the `error` event), and the
 *   ids of the jobs added afterwards go on above the old ones instead of starting again at 1;
 * - every job added after the restart runs once and ends completed, with one `completed` event;
 * - no job from before the restart runs twice, and none of them reappears in the new store.
 *
 * ioredis holds commands while it reconnects and resends them (by default for 20 reconnection
 * attempts, about ten seconds), so with default client settings an outage this short never
 * reaches the processor as an error: it only waits. The queue here uses the application's own
 * client set to fail fast (`maxRetriesPerRequest: 1`), as a deployment that wants to hear of an
 * outage would configure it, so the outage does reach the processor.
 *
 * Runs alone (vitest.restart.config.ts): stopping the server breaks any test running beside it.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreResetError } from '../../src/errors.js';
import { initJobQueue } from '../../src/queue.js';
import { sleep, waitFor } from '../helpers/wait.js';
import { REDIS_URL, deleteKeys, uniqueName } from '../helpers/backends.js';
import { redisServer } from './servers.js';
import { OUTAGE_MS, RESTART_TESTS_ENABLED, numberOf, sameErrors, startWorkload } from './support.js';

const server = redisServer(REDIS_URL);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe.runIf(RESTART_TESTS_ENABLED)('Redis server restart under a running processor (issue 3)', () => {
  beforeAll(async () => {
    await server.ensureRunning();
  });

  afterAll(async () => {
    // Whatever the test did, leave a running server for what runs next.
    await server.ensureRunning();
  });

  it(
    'reports the outage, survives the emptied store and processes the jobs added afterwards',
    { timeout: 60_000 },
    async () => {
      const keyPrefix = `${uniqueName('qrestart')}:`;
      const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      // The application's client: its connection errors during the outage are expected here.
      client.on('error', () => undefined);
      const queue = initJobQueue({ backend: 'redis', client, keyPrefix });
      const work = startWorkload(queue);
      try {
        await work.add(0, 60);
        await waitFor(() => work.runs.size >= 10, { timeoutMs: 10_000, what: 'the first jobs to run' });

        await server.stop();
        const downAt = Date.now();
        let reportedWhileDown: Error[] = [];
        try {
          await waitFor(() => work.onError.length > 0, {
            timeoutMs: OUTAGE_MS + 3000,
            what: `${server.name} being down to be reported`,
          });
          await sleep(downAt + OUTAGE_MS - Date.now());
          reportedWhileDown = [...work.onError];
        } finally {
          await server.start();
        }
        expect(reportedWhileDown.some((e) => e.message.startsWith('claiming jobs failed'))).toBe(true);
        // The premise: the new server holds none of the jobs added before the restart.
        await waitFor(
          async () => {
            await client.ping(); // resolves once the client has reconnected
            return true;
          },
          {
            timeoutMs: 10_000,
            what: 'the client to reconnect',
          },
        );
        expect(await queue.getAllJobs()).toEqual([]);

        await work.add(100, 140);
        await waitFor(() => work.ran(100, 140), { timeoutMs: 20_000, what: 'the jobs added after the restart to run' });
        await waitFor(async () => (await queue.getJobsByStatus('completed')).length === 40, {
          timeoutMs: 20_000,
          what: 'the 40 jobs to complete',
        });
        expect(work.processor.isRunning()).toBe(true);

        const jobs = await queue.getAllJobs();
        expect(jobs.map(numberOf).sort((a, b) => a - b)).toEqual(range(100, 140));
        expect(jobs.filter((j) => j.status !== 'completed')).toEqual([]);
        expect(range(100, 140).filter((n) => work.runs.get(n) !== 1)).toEqual([]);
        expect(range(0, 60).filter((n) => (work.runs.get(n) ?? 0) > 1)).toEqual([]);
        const events = await Promise.all(jobs.map((j) => queue.getJobEvents(j.id)));
        expect(events.map((list) => list.filter((e) => e.eventType === 'completed').length)).toEqual(jobs.map(() => 1));
        // Ids go on above the 60 jobs of before the restart: none of them is handed out twice.
        expect(Math.min(...jobs.map((j) => j.id))).toBeGreaterThan(60);
        // The emptied store is reported once, by the queue; the processor's own errors reach both
        // channels (the same objects, in the same order).
        const resets = work.errorEvents.filter((e) => e instanceof StoreResetError);
        expect(resets).toHaveLength(1);
        expect(
          sameErrors(
            work.errorEvents.filter((e) => !(e instanceof StoreResetError)),
            work.onError,
          ),
        ).toBe(true);
      } finally {
        await work.processor.stopAndDrain(5000);
        await queue.close();
        await deleteKeys(client, `${keyPrefix}*`).catch(() => undefined);
        client.disconnect();
      }
    },
  );
});
