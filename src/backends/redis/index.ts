/**
 * The Redis backend: every operation of the Backend, CronStore and WaitStore interfaces on one
 * Redis (or one Redis Cluster slot: all keys share the `{q}` hash tag, see keys.ts). Each change
 * is one Lua script (lua/*.lua, built into lua.generated.ts by scripts/build-lua.ts).
 */
import type { Redis } from 'ioredis';
import type { Backend, CronStore, WaitStore } from '../../backend.js';
import type { ResolvedRedisConfig } from '../../config.js';
import { UnsupportedOnBackendError } from '../../errors.js';
import { openConnection } from './connection.js';
import type { BackendContext } from './context.js';
import { addCronSchedule, editCronSchedule, enqueueCronSlots, getCronSchedules, getDueCronSchedules, removeCronSchedule } from './cron.js';
import { addJobs, getJob, getJobEvents, getJobs } from './jobs.js';
import { redisKeys } from './keys.js';
import { heldJobIds } from './leases.js';
import { cancelJobs, cleanupOldJobEvents, cleanupOldJobs, editJobs, reclaimStuckJobs, retryJob } from './manage.js';
import { claimJobs, completeJobs, failJob, prolongJob, setOutput, setProgress } from './processing.js';
import { createScriptRunner } from './scripts.js';
import { createSubscriptions } from './subscribe.js';
import { completeToken, createToken, enterWait, expireTimedOutTokens, getToken, saveStep } from './waits.js';

/** Longest wait for QUIT's goodbye before the socket is simply closed. */
const QUIT_WAIT_MS = 2000;

/**
 * QUIT lets replies in flight arrive first; but while Redis is unreachable it waits in the
 * offline queue (and ioredis stops reconnecting once quitting), so it may never settle. Then,
 * or when QUIT is slow, the connection is dropped: close() always settles.
 */
async function closeClient(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
  if (client.status === 'ready') {
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<void>((resolve) => (timer = setTimeout(resolve, QUIT_WAIT_MS)));
    // A failed QUIT is no reason to keep the connection: it is dropped below.
    await Promise.race([Promise.all([client.quit().catch(() => undefined), ended]), slow]);
    clearTimeout(timer);
  }
  // Read again: the awaits above may have ended the connection (TypeScript narrowed it).
  if ((client.status as string) !== 'end') {
    client.disconnect();
    // 'end' follows a disconnect at once, or not at all when no socket was open.
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 100))]);
  }
}

/** Creates the Redis backend. */
export function createRedisBackend(config: ResolvedRedisConfig): Backend & CronStore & WaitStore {
  const { client, owned } = openConnection(config);
  const ctx: BackendContext = { client, keys: redisKeys(config.keyPrefix), run: createScriptRunner(client, config.keyPrefix) };
  const subscriptions = createSubscriptions(client, ctx.keys.wake, `queuedev-wake:${config.keyPrefix}`);

  return {
    addJobs: (input) => addJobs(ctx, input),
    getJob: (id) => getJob(ctx, id),
    getJobs: (query) => getJobs(ctx, query),
    getJobEvents: (jobId) => getJobEvents(ctx, jobId),
    retryJob: (jobId, now) => retryJob(ctx, jobId, now),
    cancelJobs: (selector, now) => cancelJobs(ctx, selector, now),
    editJobs: (selector, edit, now) => editJobs(ctx, selector, edit, now),
    cleanupOldJobs: (input) => cleanupOldJobs(ctx, input),
    cleanupOldJobEvents: (input) => cleanupOldJobEvents(ctx, input),
    reclaimStuckJobs: (input) => reclaimStuckJobs(ctx, input),

    claimJobs: (input) => claimJobs(ctx, input),
    completeJobs: (completions, now) => completeJobs(ctx, completions, now),
    failJob: (input) => failJob(ctx, input),
    prolongJob: (input) => prolongJob(ctx, input),
    setProgress: (input) => setProgress(ctx, input),
    setOutput: (input) => setOutput(ctx, input),
    heldJobIds: (input) => heldJobIds(ctx, input),
    subscribeJobAvailable: (listener) => subscriptions.subscribe(listener),

    addCronSchedule: (schedule, now) => addCronSchedule(ctx, schedule, now),
    getCronSchedules: (query) => getCronSchedules(ctx, query),
    editCronSchedule: (id, edit, now) => editCronSchedule(ctx, id, edit, now),
    removeCronSchedule: (id) => removeCronSchedule(ctx, id),
    getDueCronSchedules: (now, limit) => getDueCronSchedules(ctx, now, limit),
    enqueueCronSlots: (slots, now) => enqueueCronSlots(ctx, slots, now),

    saveStep: (input) => saveStep(ctx, input),
    enterWait: (input) => enterWait(ctx, input),
    createToken: (input) => createToken(ctx, input),
    completeToken: (input) => completeToken(ctx, input),
    getToken: (tokenId) => getToken(ctx, tokenId),
    expireTimedOutTokens: (now) => expireTimedOutTokens(ctx, now),

    getPool() {
      throw new UnsupportedOnBackendError('getPool() returns the PostgreSQL pool, so it is only available on the postgres backend; this queue uses redis (use getRedisClient())');
    },
    getRedisClient: () => client,

    async close() {
      // Subscriptions use connections of their own, created here: closed whoever owns `client`.
      await subscriptions.closeAll();
      if (owned) await closeClient(client);
    },
  };
}
