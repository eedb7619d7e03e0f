/**
 * The Redis backend: every operation of the Backend, CronStore and WaitStore interfaces on one
 * Redis (or one Redis Cluster slot: all keys share the `{q}` hash tag, see keys.ts). Each change
 * is one Lua script (lua/*.lua, built into lua.generated.ts by scripts/build-lua.ts).
 */
import type { Backend, CronStore, WaitStore } from '../../backend.js';
import type { ResolvedRedisConfig } from '../../config.js';
import { UnsupportedOnBackendError } from '../../errors.js';
import { openConnection } from './connection.js';
import type { BackendContext } from './context.js';
import { addCronSchedule, editCronSchedule, enqueueCronSlots, getCronSchedules, getDueCronSchedules, removeCronSchedule } from './cron.js';
import { addJobs, getJob, getJobEvents, getJobs } from './jobs.js';
import { redisKeys } from './keys.js';
import { cancelJobs, cleanupOldJobEvents, cleanupOldJobs, editJobs, reclaimStuckJobs, retryJob } from './manage.js';
import { claimJobs, completeJobs, failJob, prolongJob, setOutput, setProgress } from './processing.js';
import { createScriptRunner, type ScriptRunner } from './scripts.js';
import { createSubscriptions } from './subscribe.js';
import { completeToken, createToken, enterWait, expireTimedOutTokens, getToken, saveStep } from './waits.js';

/** Creates the Redis backend. */
export function createRedisBackend(config: ResolvedRedisConfig): Backend & CronStore & WaitStore {
  const { client, owned, ready } = openConnection(config);
  const runScript = createScriptRunner(client, config.keyPrefix);
  // Nothing is sent before the client is known to be on its database (see openConnection).
  const run: ScriptRunner = async (name, args) => {
    await ready();
    return runScript(name, args);
  };
  const ctx: BackendContext = { client, keys: redisKeys(config.keyPrefix), run };
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
    getToken: async (tokenId) => {
      await ready(); // getToken reads with the client directly, not through `run`
      return getToken(ctx, tokenId);
    },
    expireTimedOutTokens: (now) => expireTimedOutTokens(ctx, now),

    getPool() {
      throw new UnsupportedOnBackendError('getPool() returns the PostgreSQL pool, so it is only available on the postgres backend; this queue uses redis (use getRedisClient())');
    },
    getRedisClient: () => client,

    async close() {
      // Subscriptions use connections of their own, created here: closed whoever owns `client`.
      await subscriptions.closeAll();
      if (!owned || client.status === 'end') return;
      // QUIT's reply comes before the socket closes; wait for the end so that close() means closed.
      const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
      await client.quit();
      await ended;
    },
  };
}
