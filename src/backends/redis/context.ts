/** What every Redis backend operation works with. */
import type { Redis } from 'ioredis';
import type { RedisKeys } from './keys.js';
import type { ScriptRunner } from './scripts.js';

export interface BackendContext {
  client: Redis;
  keys: RedisKeys;
  run: ScriptRunner;
}
