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
  /**
   * Reports an error `operation` got past, translated as its own errors are, to the queue's
   * error reporter, its message after `context`: the operation returns what it did before the
   * error instead of throwing.
   */
  reportPassed(error: unknown, operation: string, context: string): void;
}
