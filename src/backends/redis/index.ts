/**
 * The Redis backend: every operation of the Backend, CronStore and WaitStore interfaces on one
 * Redis (or one Redis Cluster slot: all keys share the `{q}` hash tag, see keys.ts). Each change
 * is one Lua script (lua/*.lua, built into lua.generated.ts by scripts/build-lua.ts).
 */
import type { Redis } from 'ioredis';
import type { Backend, CronStore, WaitStore } from '../../backend.js';
import type { ResolvedRedisConfig } from '../../config.js';
import { UnsupportedOnBackendError } from '../../errors.js';
import { withStoreErrors } from '../../store-errors.js';
import type { Clock } from '../../types.js';
import { openConnection } from './connection.js';
import type { BackendContext } from './context.js';
import { addCronSchedule, editCronSchedule, enqueueCronSlots, getCronSchedules, getDueCronSchedules, removeCronSchedule } from './cron.js';
import { addJobs, getJob, getJobEvents, getJobs } from './jobs.js';
import { StoreIdentity } from './identity.js';
import { redisKeys } from './keys.js';
import { heldJobIds } from './leases.js';
import { cancelJobs, cleanupOldJobEvents, cleanupOldJobs, editJobs, reclaimStuckJobs, retryJob } from './manage.js';
import { claimJobs, completeJobs, failJob, prolongJob, setOutput, setProgress } from './processing.js';
import { createScriptRunner, type ScriptRunner } from './scripts.js';
import { redisErrorTranslator } from './store-errors.js';
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

/**
 * Creates the Redis backend. Every method's errors go through one translation
 * (store-errors.ts); the ids it sees feed the store identity check (identity.ts).
 */
export function createRedisBackend(config: ResolvedRedisConfig, clock: Clock): Backend & CronStore & WaitStore {
  const { client, owned, ready } = openConnection(config);
  const runScript = createScriptRunner(client, config.keyPrefix);
  // Nothing is sent before the client is known to be on its database (see openConnection).
  const run: ScriptRunner = async (name, args) => {
    await ready();
    return runScript(name, args);
  };
  const describeStore = `under key prefix ${JSON.stringify(config.keyPrefix)}`;
  const identity = new StoreIdentity(run, clock, describeStore);
  const ctx: BackendContext = { client, keys: redisKeys(config.keyPrefix), run: identity.runner() };
  const subscriptions = createSubscriptions(client, ctx.keys.wake, `queuedev-wake:${config.keyPrefix}`);
  const sawJobs = <T>(result: T, ids: (r: T) => (number | null)[]): T => {
    identity.sawJobIds(ids(result));
    return result;
  };
  const sawSchedules = <T>(result: T, ids: (r: T) => number[]): T => {
    identity.sawScheduleIds(ids(result));
    return result;
  };

  return withStoreErrors<Backend & CronStore & WaitStore>({
    addJobs: async (input) => sawJobs(await addJobs(ctx, input), (r) => r.ids),
    getJob: async (id) => sawJobs(await getJob(ctx, id), (job) => (job ? [job.id] : [])),
    getJobs: async (query) => sawJobs(await getJobs(ctx, query), (jobs) => jobs.map((j) => j.id)),
    getJobEvents: (jobId) => getJobEvents(ctx, jobId),
    retryJob: (jobId, now) => retryJob(ctx, jobId, now),
    cancelJobs: (selector, now) => cancelJobs(ctx, selector, now),
    editJobs: (selector, edit, now) => editJobs(ctx, selector, edit, now),
    cleanupOldJobs: (input) => cleanupOldJobs(ctx, input),
    cleanupOldJobEvents: (input) => cleanupOldJobEvents(ctx, input),
    reclaimStuckJobs: async (input) => sawJobs(await reclaimStuckJobs(ctx, input), (r) => r.deadLetterJobIds),

    claimJobs: async (input) => sawJobs(await claimJobs(ctx, input), (jobs) => jobs.map((j) => j.id)),
    completeJobs: (completions, now) => completeJobs(ctx, completions, now),
    failJob: async (input) => sawJobs(await failJob(ctx, input), (r) => [r?.deadLetterJobId ?? null]),
    prolongJob: (input) => prolongJob(ctx, input),
    setProgress: (input) => setProgress(ctx, input),
    setOutput: (input) => setOutput(ctx, input),
    heldJobIds: (input) => heldJobIds(ctx, input),
    subscribeJobAvailable: (listener) => subscriptions.subscribe(listener),

    addCronSchedule: async (schedule, now) => sawSchedules(await addCronSchedule(ctx, schedule, now), (id) => [id]),
    getCronSchedules: async (query) => sawSchedules(await getCronSchedules(ctx, query), (list) => list.map((s) => s.id)),
    editCronSchedule: (id, edit, now) => editCronSchedule(ctx, id, edit, now),
    removeCronSchedule: (id) => removeCronSchedule(ctx, id),
    getDueCronSchedules: (now, limit) => getDueCronSchedules(ctx, now, limit),
    enqueueCronSlots: async (slots, now) => sawJobs(await enqueueCronSlots(ctx, slots, now), (r) => r.map((slot) => slot.jobId)),

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
    setErrorReporter: (report) => identity.setReporter(report),

    async close() {
      // Subscriptions use connections of their own, created here: closed whoever owns `client`.
      await subscriptions.closeAll();
      if (owned) await closeClient(client);
    },
  }, redisErrorTranslator(client, describeStore));
}
