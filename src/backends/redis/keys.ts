/**
 * Every Redis key of a queue. All keys start with the prefix and share the hash tag `{q}`,
 * so every script's keys live in one Redis Cluster slot. Scripts receive every key they touch
 * through KEYS (never built inside Lua), which is why per-job data lives in hashes keyed by
 * job id rather than in one key per job.
 *
 * Ids inside sorted-set members are zero-padded to 15 digits (`pad`), so lexicographic order
 * equals numeric order.
 *
 * | key            | type | contents |
 * |----------------|------|----------|
 * | meta           | hash | the store's identity: `storeId` (random), `createdAt` (ms); see identity.ts |
 * | id             | str  | last job id (INCR) |
 * | jobs           | hash | id -> job metadata JSON (StoredJob, without payload/output/stepData) |
 * | payloads       | hash | id -> payload JSON text, stored verbatim (never decoded in Lua) |
 * | outputs        | hash | id -> output JSON text, verbatim |
 * | steps          | hash | `<pad id>\0<step name>` -> that step's value (durable `ctx.run` result) as JSON text, verbatim, never decoded in Lua |
 * | step-names     | zset | score 0, member `<pad id>\0<step name>` (the `steps` field): finds a job's steps by range |
 * | idem           | hash | idempotency key -> id |
 * | all            | zset | member id, score id: every job (listing, newest first) |
 * | status:<s>     | zset | member id, score id: jobs in status <s>, one key per status |
 * | types          | zset | score 0, member `<jobType>\0<pad id>`: lookup by type |
 * | tags           | zset | score 0, member `<tag>\0<pad id>`: lookup by tag |
 * | ready          | zset | member pad id, score -priority: claimable now, best first |
 * | ready-by-type  | zset | score 0, member `<jobType>\0<2147483647 - priority, 10 digits>\0<pad id>`: the same jobs as `ready`, best first within each type (claims limited to some types read only their types) |
 * | claim-hints    | hash | id -> `<jobType>\0<group id or empty>`: lets a claim skip jobs of full groups without decoding their metadata |
 * | scheduled      | zset | member pad id, score ready time (ms): pending with a future runAt, failed awaiting retry, timed waits |
 * | processing     | zset | member pad id, score locked_at (ms): reclaim scans it |
 * | finished       | zset | member pad id, score updatedAt (ms): completed, cancelled, failed without retry; cleanup scans it |
 * | deps           | zset | score 0, member `<pad prerequisite id>\0<pad dependent id>`: dependents of a job |
 * | tag-deps       | zset | score 0, member `<tag>\0<pad id>` for each tag of a job's dependsOn.tags: finds the jobs a tag-barrier job holds back (cascade cancel) |
 * | groups         | hash | group id -> number of processing jobs of the group |
 * | event:id       | str  | last event id |
 * | events         | hash | event id -> event JSON `{ id, jobId, eventType, createdAt, metadata }` |
 * | job-events     | zset | score 0, member `<pad job id>\0<pad event id>`: events of a job |
 * | event-times    | zset | member event id, score createdAt (ms): event cleanup |
 * | wake           | list | wake-up signal for idle processors (BLPOP) |
 * | token-waiters  | zset | score 0, member `<token id>\0<pad job id>`: the waiting jobs of a token (status waiting, waitTokenId = token) |
 *
 * Cron schedules (SPEC §2.9, §4.4):
 *
 * | key            | type | contents |
 * |----------------|------|----------|
 * | cron:id        | str  | last schedule id (INCR) |
 * | cron           | hash | id -> schedule JSON (StoredCronSchedule, without payload) |
 * | cron-payloads  | hash | id -> payload JSON text of the jobs it creates, verbatim |
 * | cron-names     | hash | schedule name -> id: names are unique |
 * | cron-due       | zset | member pad id, score nextRunAt (ms): ACTIVE schedules only (paused ones are absent) |
 *
 * Waitpoint tokens (DETAILS "Queue-level token operations"):
 *
 * | key            | type | contents |
 * |----------------|------|----------|
 * | tokens         | hash | token id (`wp_<uuid>`) -> token JSON (StoredToken, without output) |
 * | token-outputs  | hash | token id -> output JSON text, verbatim (completed tokens) |
 * | token-timeouts | zset | member token id, score timeoutAt (ms): OPEN tokens with a timeout (expiry scans it) |
 */
import type { JobStatus } from '../../types.js';
import { JOB_STATUSES } from '../../types.js';

export const ID_WIDTH = 15;

/** Zero-pads an id for sorted-set members. */
export function pad(id: number): string {
  return String(id).padStart(ID_WIDTH, '0');
}

export function redisKeys(prefix: string) {
  const k = (name: string) => `${prefix}{q}:${name}`;
  const status = Object.fromEntries(JOB_STATUSES.map((s) => [s, k(`status:${s}`)])) as Record<JobStatus, string>;
  return {
    meta: k('meta'),
    id: k('id'),
    jobs: k('jobs'),
    payloads: k('payloads'),
    outputs: k('outputs'),
    steps: k('steps'),
    idem: k('idem'),
    all: k('all'),
    status,
    types: k('types'),
    tags: k('tags'),
    ready: k('ready'),
    readyByType: k('ready-by-type'),
    claimHints: k('claim-hints'),
    scheduled: k('scheduled'),
    processing: k('processing'),
    finished: k('finished'),
    deps: k('deps'),
    tagDeps: k('tag-deps'),
    groups: k('groups'),
    eventId: k('event:id'),
    events: k('events'),
    jobEvents: k('job-events'),
    eventTimes: k('event-times'),
    wake: k('wake'),
    stepNames: k('step-names'),
    tokenWaiters: k('token-waiters'),
    cronId: k('cron:id'),
    cron: k('cron'),
    cronPayloads: k('cron-payloads'),
    cronNames: k('cron-names'),
    cronDue: k('cron-due'),
    tokens: k('tokens'),
    tokenOutputs: k('token-outputs'),
    tokenTimeouts: k('token-timeouts'),
  };
}

export type RedisKeys = ReturnType<typeof redisKeys>;

/**
 * Every key by the name Lua script headers use for it (the part after `{q}:`). Scripts
 * declare the keys they touch by these names; the runner resolves them with `keyName`.
 */
export const KEY_NAMES: readonly string[] = [
  'meta',
  'id',
  'jobs',
  'payloads',
  'outputs',
  'steps',
  'idem',
  'all',
  ...JOB_STATUSES.map((s) => `status:${s}`),
  'types',
  'tags',
  'ready',
  'ready-by-type',
  'claim-hints',
  'scheduled',
  'processing',
  'finished',
  'deps',
  'tag-deps',
  'groups',
  'event:id',
  'events',
  'job-events',
  'event-times',
  'wake',
  'step-names',
  'token-waiters',
  'cron:id',
  'cron',
  'cron-payloads',
  'cron-names',
  'cron-due',
  'tokens',
  'token-outputs',
  'token-timeouts',
];

/** The full key for a name of KEY_NAMES. */
export function keyName(prefix: string, name: string): string {
  return `${prefix}{q}:${name}`;
}
