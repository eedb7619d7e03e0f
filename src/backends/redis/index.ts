import type { Backend } from '../../backend.js';
import type { ResolvedRedisConfig } from '../../config.js';

/** Creates the Redis backend. (Being implemented.) */
export function createRedisBackend(config: ResolvedRedisConfig): Backend {
  void config;
  throw new Error('not implemented yet');
}
