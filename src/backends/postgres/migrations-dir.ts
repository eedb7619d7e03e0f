/** The shipped migrations folder: `migrations/` at the package root (src/ and dist/ alike). */
import { join } from 'node:path';
import { findPackageRoot } from '../../package-root.js';

export function findMigrationsDir(): string {
  return join(findPackageRoot(), 'migrations');
}
