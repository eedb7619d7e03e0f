/**
 * The Redis backend: every operation of the Backend, CronStore and WaitStore interfaces on one
 * Redis (or one Redis Cluster slot: all keys of a queue share one hash tag, see keys.ts). Each change
 * is one Lua script (lua/*.lua, built into lua.generated.ts by scripts/build-lua.ts). Composed
 * by area as the PostgreSQL backend is: jobs.ts, manage.ts, processing.ts, cron.ts and waits.ts
 * each export their operations, bound here to one context (context.ts).
 */
import type { Redis } from 'ioredis';
import type { Backend, CronStore, WaitStore } from '../../backend.js';
import type { ResolvedRedisConfig } from '../../config.js';
import { toError } from '../../failure.js';
import { withStoreErrors } from '../../store-errors.js';
import { StoreFact } from '../../store-facts.js';
import type { Clock } from '../../types.js';
import { bindOperations } from '../operations.js';
import { openConnection } from './connection.js';
import type { BackendContext } from './context.js';
import { cronOperations } from './cron.js';
import { checkEvictionPolicy } from './durability.js';
import { StoreIdentity } from './identity.js';
import { findOperations } from './find.js';
import { jobOperations } from './jobs.js';
import { redisKeys } from './keys.js';
import { manageOperations } from './manage.js';
import { overviewOperations } from './overview.js';
import { processingOperations } from './processing.js';
import { createScriptRunner, type ScriptArg, type ScriptName, type ScriptRunner } from './scripts.js';
import { scriptSlice } from './slices.js';
import { clientSecrets } from './credentials.js';
import { redisErrorTranslator } from './store-errors.js';
import { createSubscriptions } from './subscribe.js';
import { waitOperations } from './waits.js';

const OPERATIONS = {
  ...jobOperations,
  ...findOperations,
  ...manageOperations,
  ...processingOperations,
  ...cronOperations,
  ...waitOperations,
  ...overviewOperations,
};

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
  const { client, owned, ready, release, db } = openConnection(config);
  const runScript = createScriptRunner(client, config.keyPrefix, db);
  const describeStore = `under key prefix ${JSON.stringify(config.keyPrefix)}`;
  config.log.addSecrets(clientSecrets(client));
  // Until the queue sets its reporter (at once, when it is created).
  let report: (error: Error, options?: { risk?: boolean }) => void = (error) => config.log.error(error.message);
  let closed = false;
  // Once, after the first reply (the client is connected, a Cluster knows its masters); it never
  // delays or fails a call.
  let evictionChecked = false;
  const checkEviction = () => {
    evictionChecked = true;
    void checkEvictionPolicy(client, describeStore).then((error) => {
      if (error && !closed) report(error, { risk: true });
    });
  };
  // Nothing is sent before the client is known to be on its database (see openConnection);
  // once it is, scripts go out without waiting for that check again.
  let onDatabase = false;
  const run: ScriptRunner = async <T>(name: ScriptName, args: ScriptArg[]): Promise<T> => {
    if (!onDatabase) {
      await ready();
      onDatabase = true;
    }
    const reply = await runScript<T>(name, args);
    if (!evictionChecked) checkEviction();
    return reply;
  };
  const translate = redisErrorTranslator(client, describeStore);
  const identity = new StoreIdentity(run, clock, describeStore);
  identity.setReporter((error) => report(error));
  const ctx: BackendContext = {
    client,
    keys: redisKeys(config.keyPrefix, db),
    run: identity.runner(),
    ready,
    sawJobIds: (ids) => identity.sawJobIds(ids),
    sawScheduleIds: (ids) => identity.sawScheduleIds(ids),
    reportPassed: (error, operation, context) => report(toError(translate(error, operation), context)),
  };
  const subscriptions = createSubscriptions(client, ctx.keys.wake, `queuedev-wake:${config.keyPrefix}`);

  const backend: Backend & CronStore & WaitStore = {
    ...bindOperations(ctx, OPERATIONS),
    // Read at each write: tests lower the slice.
    get maxCompletionsPerCall() {
      return scriptSlice.process;
    },
    get maxFailuresPerCall() {
      return scriptSlice.fail;
    },
    subscribeJobAvailable: (listener) => subscriptions.subscribe(listener),
    getPool() {
      throw new StoreFact({ kind: 'unsupported-on-backend', operation: 'getPool' });
    },
    getRedisClient: () => client,
    setErrorReporter(reporter) {
      report = reporter;
      identity.setReporter(reporter);
    },
    async close() {
      closed = true;
      release();
      // Subscriptions use connections of their own, created here: closed whoever owns `client`.
      await subscriptions.closeAll();
      if (owned) await closeClient(client);
    },
  };
  return withStoreErrors(backend, translate);
}
