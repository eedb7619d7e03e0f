import type { Backend } from '../../backend.js';
import type { ResolvedPostgresConfig } from '../../config.js';

/** Creates the PostgreSQL backend. (Being implemented.) */
export function createPostgresBackend(config: ResolvedPostgresConfig): Backend {
  void config;
  throw new Error('not implemented yet');
}
