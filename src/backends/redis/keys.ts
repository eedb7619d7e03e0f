/**
 * Every Redis key of a queue, in one table (KEYS): redisKeys(), the names Lua script headers
 * use (KEY_NAMES) and the key table of docs/backends.md are all derived from it
 * (keys.test.ts checks the page against renderKeyTable()).
 *
 * All keys start with the prefix and share the hash tag `{q}`, so every script's keys live in
 * one Redis Cluster slot. A prefix may carry a hash tag of its own (`{billing}:`, checked in
 * config.ts); Redis hashes the first `{...}` of a key, so that tag then picks the slot, and
 * queues with different tags spread over a cluster. Scripts receive every key they touch
 * through KEYS (never built inside Lua; the Lua build refuses it), which is why per-job data
 * lives in hashes keyed by job id rather than in one key per job.
 *
 * Ids inside sorted-set members are zero-padded to 15 digits (`pad`), so lexicographic order
 * equals numeric order. The comment above each entry gives the exact layout.
 */
import type { JobStatus } from '../../types.js';
import { JOB_STATUSES } from '../../types.js';

export const ID_WIDTH = 15;

/** Zero-pads an id for sorted-set members. */
export function pad(id: number): string {
  return String(id).padStart(ID_WIDTH, '0');
}

/**
 * Each key: `name` after `<prefix>{q}:` (as Lua script headers declare it), `property` in
 * redisKeys(), and the `type` and `contents` the docs table shows. `status:<status>` stands
 * for one key per job status.
 */
export const KEYS = [
  // the store's identity: `storeId` (random), `createdAt` (ms); see identity.ts
  {
    name: 'meta',
    property: 'meta',
    type: 'hash',
    contents:
      "the store's identity: a random `storeId` and `createdAt`, written on first use (see [A wiped store](#a-wiped-store))",
  },
  // last job id (INCR)
  { name: 'id', property: 'id', type: 'string', contents: 'last job id' },
  // id -> job metadata JSON (StoredJob, without payload/output/stepData; null fields and empty arrays left out)
  {
    name: 'jobs',
    property: 'jobs',
    type: 'hash',
    contents:
      'job id → job fields as JSON (without payload, output and step data; null fields and empty arrays left out)',
  },
  // id -> payload JSON text, stored verbatim (never decoded in Lua)
  { name: 'payloads', property: 'payloads', type: 'hash', contents: 'job id → payload JSON, stored verbatim' },
  // id -> output JSON text, verbatim
  { name: 'outputs', property: 'outputs', type: 'hash', contents: 'job id → output JSON, verbatim' },
  // `<pad id>\0<step name>` -> that step's value (durable `ctx.run` result) as JSON text, verbatim, never decoded in Lua
  {
    name: 'steps',
    property: 'steps',
    type: 'hash',
    contents: "`<job id>\\0<step name>` → that step's stored result (`ctx.run`), verbatim JSON",
  },
  // score 0, member `<pad id>\0<step name>` (the `steps` field): finds a job's steps by range
  {
    name: 'step-names',
    property: 'stepNames',
    type: 'sorted set',
    contents: "`<job id>\\0<step name>` members: finds a job's steps",
  },
  // idempotency key -> id
  { name: 'idem', property: 'idem', type: 'hash', contents: 'idempotency key → job id' },
  // member id, score id: every job (listing, newest first)
  { name: 'all', property: 'all', type: 'sorted set', contents: 'every job, by id (listing newest first)' },
  // member id, score id: jobs in status <s>, one key per status
  {
    name: 'status:<status>',
    property: 'status',
    type: 'sorted set',
    contents: 'jobs in that status, by id; one key per status',
  },
  // score 0, member `<jobType>\0<pad id>`: lookup by type
  { name: 'types', property: 'types', type: 'sorted set', contents: '`<jobType>\\0<id>` members: lookup by job type' },
  // score 0, member `<tag>\0<pad id>`: lookup by tag
  { name: 'tags', property: 'tags', type: 'sorted set', contents: '`<tag>\\0<id>` members: lookup by tag' },
  // member id, score runAt (ms): listings filtered by a runAt range read the range
  {
    name: 'run-at',
    property: 'runAt',
    type: 'sorted set',
    contents: 'every job, by `runAt`: listings filtered by a `runAt` range read the range instead of walking jobs',
  },
  // member pad id, score -priority: claimable now, best first
  { name: 'ready', property: 'ready', type: 'sorted set', contents: 'claimable now, scored by priority (best first)' },
  // score 0, member `<jobType>\0<2147483647 - priority, 10 digits>\0<pad id>`: the same jobs as `ready`, best first within each type (claims limited to some types read only their types)
  {
    name: 'ready-by-type',
    property: 'readyByType',
    type: 'sorted set',
    contents:
      'the same jobs as `ready`, ordered best first within each job type, so a processor limited to some types reads only those',
  },
  // member pad id, score id: due pending jobs held back by a dependsOn.jobIds prerequisite not completed; they move to `ready` when it completes or is removed, so a claim never walks them
  {
    name: 'blocked',
    property: 'blocked',
    type: 'sorted set',
    contents:
      'due jobs waiting for a `dependsOn.jobIds` prerequisite; they move to `ready` when it completes, so claims never walk them',
  },
  // score 0, members `g\0<group id>\0<jobType>\0<2147483647 - priority, 10 digits>\0<pad id>` (due jobs a claim found in a full group) and `b\0<barrier>\0<2147483647 - priority, 10 digits>\0<pad id>` (due jobs behind a dependsOn.tags barrier; <barrier>: the tags hex-encoded, sorted, joined by \1); the end of the block puts them back in `ready` (includes/parked.lua)
  {
    name: 'parked',
    property: 'parked',
    type: 'sorted set',
    contents:
      'due jobs a claim found in a full group or behind a `dependsOn.tags` barrier, by group (and job type) or by barrier, best first; they move back to `ready` when a slot of the group frees or the barrier ends, so claims never walk them',
  },
  // id -> `<jobType>\0<group id or empty>`: written by earlier layouts, read by nothing (claims park the jobs of full
  // groups instead of skipping them); cleanup removes a job's entry with the job
  {
    name: 'claim-hints',
    property: 'claimHints',
    type: 'hash',
    contents:
      'job id → job type and group id, in stores written by earlier versions only; nothing reads it, and cleanup removes an entry with its job',
  },
  // member pad id, score ready time (ms): pending with a future runAt, failed awaiting retry, timed waits
  {
    name: 'scheduled',
    property: 'scheduled',
    type: 'sorted set',
    contents: 'jobs that become claimable later (future `runAt`, retry times), scored by that time',
  },
  // member pad id, score locked_at (ms): reclaim scans it
  {
    name: 'processing',
    property: 'processing',
    type: 'sorted set',
    contents: 'processing jobs, scored by lock time (reclaim)',
  },
  // member pad id, score updatedAt (ms): completed, cancelled, failed without retry; cleanup scans it
  {
    name: 'finished',
    property: 'finished',
    type: 'sorted set',
    contents: 'completed, cancelled and finally failed jobs, scored by update time (cleanup)',
  },
  // score 0, member `<pad prerequisite id>\0<pad dependent id>`: dependents of a job
  {
    name: 'deps',
    property: 'deps',
    type: 'sorted set',
    contents: '`<prerequisite id>\\0<dependent id>` members: dependents of a job',
  },
  // score 0, member `<tag>\0<pad id>` for each tag of a job's dependsOn.tags: finds the jobs a tag-barrier job holds back (cascade cancel)
  {
    name: 'tag-deps',
    property: 'tagDeps',
    type: 'sorted set',
    contents: "`<tag>\\0<id>` members for each tag of a job's `dependsOn.tags`: the jobs a tag barrier holds back",
  },
  // group id -> number of processing jobs of the group
  { name: 'groups', property: 'groups', type: 'hash', contents: 'group id → number of its jobs processing' },
  // last event id
  { name: 'event:id', property: 'eventId', type: 'string', contents: 'last event id' },
  // event id -> event JSON `{ id, jobId, eventType, createdAt, metadata }`
  { name: 'events', property: 'events', type: 'hash', contents: 'event id → event JSON' },
  // score 0, member `<pad job id>\0<pad event id>`: events of a job
  {
    name: 'job-events',
    property: 'jobEvents',
    type: 'sorted set',
    contents: '`<job id>\\0<event id>` members: history of a job',
  },
  // `below` (a job id) and `before` (ms): the `added` events kept in job metadata (`addedEventId`) of jobs whose
  // id is below `below` and that were added before `before` are removed (cleanup-added-events.lua)
  {
    name: 'added-floor',
    property: 'addedFloor',
    type: 'hash',
    contents: '`below`, `before`: floor of the removed `added` events kept in job metadata',
  },
  // `score` and `skip`: where the last batch of the cleanup of the `processing` and `completed` events kept in the
  // metadata of completed jobs stopped in `finished` (cleanup-kept-events.lua): the next batch walks on from there
  {
    name: 'kept-floor',
    property: 'keptFloor',
    type: 'hash',
    contents:
      '`score`, `skip`: where the cleanup of the `processing` and `completed` events kept in job metadata stopped in `finished`',
  },
  // member event id, score createdAt (ms): event cleanup
  {
    name: 'event-times',
    property: 'eventTimes',
    type: 'sorted set',
    contents: 'event ids by creation time (event cleanup)',
  },
  // `<minute>:completed` and `<minute>:failed` (minute: whole minutes since the epoch) -> attempts that ended so in
  // that minute; the scripts that add to it remove the fields of older minutes (includes/throughput.lua)
  {
    name: 'throughput',
    property: 'throughput',
    type: 'hash',
    contents:
      '`<minute>:completed` and `<minute>:failed` → attempts that ended so in that minute (minutes since the epoch); kept about an hour, and the key expires an hour after its last write',
  },
  // the Pub/Sub channel of wake-ups (PUBLISH in includes/wake.lua, SUBSCRIBE in subscribe.ts): no key is stored
  {
    name: 'wake',
    property: 'wake',
    type: 'channel',
    contents:
      'Pub/Sub channel (no key is stored) on which scripts wake idle processors; on a database other than 0 its name ends in `:<database>`, as channels are server-wide',
  },
  // score 0, member `<token id>\0<pad job id>`: the waiting jobs of a token (status waiting, waitTokenId = token)
  {
    name: 'token-waiters',
    property: 'tokenWaiters',
    type: 'sorted set',
    contents: '`<token id>\\0<job id>` members: the jobs waiting on a token',
  },
  // last schedule id (INCR)
  { name: 'cron:id', property: 'cronId', type: 'string', contents: 'last cron schedule id' },
  // id -> schedule JSON (StoredCronSchedule, without payload)
  { name: 'cron', property: 'cron', type: 'hash', contents: 'schedule id → schedule fields as JSON (without payload)' },
  // id -> payload JSON text of the jobs it creates, verbatim
  {
    name: 'cron-payloads',
    property: 'cronPayloads',
    type: 'hash',
    contents: 'schedule id → payload of the jobs it creates, verbatim',
  },
  // schedule name -> id: names are unique
  { name: 'cron-names', property: 'cronNames', type: 'hash', contents: 'schedule name → id (names are unique)' },
  // member pad id, score nextRunAt (ms): ACTIVE schedules only (paused ones are absent)
  { name: 'cron-due', property: 'cronDue', type: 'sorted set', contents: 'active schedules, scored by `nextRunAt`' },
  // token id (`wp_<uuid>`) -> token JSON (StoredToken, without output)
  { name: 'tokens', property: 'tokens', type: 'hash', contents: 'token id → token fields as JSON (without output)' },
  // token id -> output JSON text, verbatim (completed tokens)
  { name: 'token-outputs', property: 'tokenOutputs', type: 'hash', contents: 'token id → output JSON, verbatim' },
  // member token id, score timeoutAt (ms): OPEN tokens with a timeout (expiry scans it)
  {
    name: 'token-timeouts',
    property: 'tokenTimeouts',
    type: 'sorted set',
    contents: 'open tokens with a timeout, scored by `timeoutAt` (expiry)',
  },
] as const satisfies readonly {
  name: string;
  property: string;
  type: 'hash' | 'string' | 'sorted set' | 'channel';
  contents: string;
}[];

type KeyEntry = (typeof KEYS)[number];
const STATUS_KEY = 'status:<status>';

export type RedisKeys = {
  [E in KeyEntry as E['property']]: E['name'] extends typeof STATUS_KEY ? Record<JobStatus, string> : string;
};

/** The keys of the queue under `prefix` on database `db`, by property. */
export function redisKeys(prefix: string, db = 0): RedisKeys {
  return Object.fromEntries(
    KEYS.map((key) => [
      key.property,
      key.name === STATUS_KEY
        ? Object.fromEntries(JOB_STATUSES.map((s) => [s, keyName(prefix, `status:${s}`)]))
        : storeName(prefix, key.name, db),
    ]),
  ) as RedisKeys;
}

/**
 * Every key by the name Lua script headers use for it (the part after `{q}:`). Scripts
 * declare the keys they touch by these names; the runner resolves them with `keyName`.
 */
export const KEY_NAMES: readonly string[] = KEYS.flatMap((key) =>
  key.name === STATUS_KEY ? JOB_STATUSES.map((s) => `status:${s}`) : [key.name],
);

/** The key table of docs/backends.md ("Keys"). */
export function renderKeyTable(): string {
  const rows = KEYS.map((key) => `| \`${key.name}\` | ${key.type} | ${key.contents} |`);
  return ['| Key (after `<prefix>{q}:`) | Type | Contents |', '|---|---|---|', ...rows].join('\n');
}

/** The full key for a name of KEY_NAMES. */
export function keyName(prefix: string, name: string): string {
  return `${prefix}{q}:${name}`;
}

const CHANNELS: ReadonlySet<string> = new Set(KEYS.filter((key) => key.type === 'channel').map((key) => key.name));

/**
 * The full name for a name of KEY_NAMES on database `db`. Keys belong to their database, but
 * Pub/Sub channels are server-wide: a channel's name carries the database when it is not 0, so
 * queues of one prefix on two databases (two stores) do not hear each other's wake-ups.
 */
export function storeName(prefix: string, name: string, db: number): string {
  const full = keyName(prefix, name);
  return db !== 0 && CHANNELS.has(name) ? `${full}:${db}` : full;
}
