/** What every Redis backend operation works with. */
import type { Redis } from 'ioredis';
import type { RedisKeys } from './keys.js';
import type { ScriptRunner } from './scripts.js';

export interface BackendContext {
  client: Redis;
  keys: RedisKeys;
  /** Runs a script once the client is ready, with the store identity check (identity.ts). */
  run: ScriptRunner;
  /** Resolves once the client is on its database; for reads that do not go through `run`. */
  ready(): Promise<void>;
  /** Every job and schedule id a reply names, so ids are never handed out twice after a reset (identity.ts). */
  sawJobIds(ids: (number | null)[]): void;
  sawScheduleIds(ids: number[]): void;
}
