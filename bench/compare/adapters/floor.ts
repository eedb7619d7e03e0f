/**
 * The machine's floor for a pickup: not a queue, but the least any queue's pickup can take on
 * this machine and store. An add is one statement or script that stores the job and announces
 * its id (PostgreSQL: an insert and `pg_notify` in one autocommitted statement; Redis: one script
 * that stores it and publishes), and the worker, woken by that announcement, claims the job by
 * id with one statement or script (a one-row update and its commit; a hash read and delete).
 * Those are the trips every pickup of every library makes at the least: the add's, the wake-up,
 * the claim's. Run with the pickup workload only.
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import { PG_URL, REDIS_URL, type Backend, type Library, type Payload } from './types.js';

const ADD_SCRIPT = `local id = redis.call('INCR', KEYS[1])
redis.call('HSET', KEYS[2], id, ARGV[1])
redis.call('PUBLISH', ARGV[2], id)
return id`;
const CLAIM_SCRIPT = `local payload = redis.call('HGET', KEYS[1], ARGV[1])
if payload then redis.call('HDEL', KEYS[1], ARGV[1]) end
return payload`;

export function floor(backend: Backend): Library {
  return {
    id: `floor-${backend}`,
    label: 'machine floor (no queue)',
    backend,
    kind: 'floor',
    settings:
      backend === 'postgres'
        ? 'not a queue: an add is one autocommitted insert with pg_notify of its id; LISTEN; a claim is one autocommitted one-row update by that id'
        : 'not a queue: an add is one script storing the job and publishing its id; SUBSCRIBE; a claim is one script reading and deleting it by that id',
    open: backend === 'postgres' ? openPostgres : openRedis,
  };
}

async function openPostgres(namespace: string, create: boolean) {
  const schema = `"${namespace}"`;
  const channel = `${namespace}_floor`;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  if (create) {
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(
      `CREATE TABLE ${schema}.jobs (id bigserial PRIMARY KEY, payload jsonb NOT NULL, claimed boolean NOT NULL DEFAULT false)`,
    );
  }
  let listener: pg.Client | undefined;
  const add = {
    name: 'floor_add',
    text: `WITH job AS (INSERT INTO ${schema}.jobs (payload) VALUES ($1) RETURNING id)
           SELECT pg_notify('${channel}', id::text) FROM job`,
  };
  const claim = {
    name: 'floor_claim',
    text: `UPDATE ${schema}.jobs SET claimed = true WHERE id = $1 AND NOT claimed RETURNING payload`,
  };
  return {
    addMany: () => Promise.reject(new Error('the floor runs the pickup workload only')),
    addOne: async (payload: Payload) => {
      await client.query({ ...add, values: [payload] });
    },
    work: async (onJob: (payload: Payload) => void) => {
      listener = new pg.Client({ connectionString: PG_URL });
      await listener.connect();
      listener.on('notification', (message) => {
        // A claim that fails leaves its job unrun, which the workload's exactly-once check reports.
        client.query<{ payload: Payload }>({ ...claim, values: [message.payload] }).then(
          ({ rows }) => rows.forEach((row) => onJob(row.payload)),
          (err: unknown) => console.error(`floor claim: ${String(err)}`),
        );
      });
      await listener.query(`LISTEN "${channel}"`);
    },
    close: async () => {
      await listener?.end();
      await client.end();
    },
  };
}

async function openRedis(namespace: string) {
  const keys = { id: `${namespace}:id`, jobs: `${namespace}:jobs` };
  const channel = `${namespace}:floor`;
  const client = new Redis(REDIS_URL);
  client.defineCommand('floorAdd', { numberOfKeys: 2, lua: ADD_SCRIPT });
  client.defineCommand('floorClaim', { numberOfKeys: 1, lua: CLAIM_SCRIPT });
  const scripts = client as unknown as {
    floorAdd(id: string, jobs: string, payload: string, channel: string): Promise<number>;
    floorClaim(jobs: string, id: string): Promise<string | null>;
  };
  let subscriber: Redis | undefined;
  return {
    addMany: () => Promise.reject(new Error('the floor runs the pickup workload only')),
    addOne: async (payload: Payload) => {
      await scripts.floorAdd(keys.id, keys.jobs, JSON.stringify(payload), channel);
    },
    work: async (onJob: (payload: Payload) => void) => {
      subscriber = new Redis(REDIS_URL);
      subscriber.on('message', (_channel: string, id: string) => {
        scripts.floorClaim(keys.jobs, id).then(
          (payload) => payload !== null && onJob(JSON.parse(payload) as Payload),
          (err: unknown) => console.error(`floor claim: ${String(err)}`),
        );
      });
      await subscriber.subscribe(channel);
    },
    close: async () => {
      await subscriber?.quit();
      await client.quit();
    },
  };
}
