/** What the comparison needs from a queue library: one adapter per library and settings. */

export type Backend = 'postgres' | 'redis';

/** The payload of every benchmark job: its number, and when it was added (wall clock, ms). */
export interface Payload {
  n: number;
  at?: number;
}

/** A library opened on one namespace (a schema or a key prefix), in one process. */
export interface QueueHandle {
  /** Adds the jobs in one call of the library's bulk API; `delayMs` schedules them ahead. */
  addMany(payloads: Payload[], delayMs?: number): Promise<void>;
  /** Adds one job with the library's single-job API. */
  addOne(payload: Payload): Promise<void>;
  /** Starts a worker that calls `onJob` for every job it runs. */
  work(onJob: (payload: Payload) => void): Promise<void>;
  /** Stops the worker (if any) and closes every connection. */
  close(): Promise<void>;
}

export interface Library {
  /** Stable id, passed to child processes. */
  id: string;
  /** Name in the tables. */
  label: string;
  backend: Backend;
  /**
   * queuedev itself, or a peer; `tuned` peers and `queuedev-tuned` run with non-default
   * throughput settings, and are compared with each other only. `floor` is no queue but the
   * least a pickup takes on the machine (adapters/floor.ts): shown, never compared.
   */
  kind: 'queuedev' | 'queuedev-tuned' | 'peer' | 'tuned' | 'floor';
  /** Settings in one line, for the report. */
  settings: string;
  /** Opens the library on a namespace; `create` installs its tables/queue first. */
  open(namespace: string, create: boolean): Promise<QueueHandle>;
}

export const PG_URL = process.env.PG_QUEUE_DATABASE ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Every worker: batch size 10 and concurrency 10 where the library has such settings. */
export const BATCH_SIZE = 10;
export const CONCURRENCY = 10;

export const JOB_TYPE = 'noop';

/** Imports a peer from this folder's own node_modules, typed loosely: the root type check must
 * not depend on the peers being installed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the peers' own types are not part of the root project
export async function importPeer(name: string): Promise<any> {
  return import(name);
}
