/**
 * Finds the shipped migrations folder. The code runs from src/ (tsx, vitest) or from the
 * flat-bundled dist/ files, at different depths, so walk up from this module's directory until
 * a `migrations` folder holding 001_initial.sql appears (the package root in both cases).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MARKER = '001_initial.sql';

export function findMigrationsDir(start: string = moduleDir()): string {
  let dir = start;
  for (;;) {
    const candidate = join(dir, 'migrations');
    if (existsSync(join(candidate, MARKER))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error(`Could not find the queuedev migrations folder (with ${MARKER}) above ${start}`);
    }
    dir = parent;
  }
}

function moduleDir(): string {
  // tsup's shims make import.meta.url work in the CommonJS build too.
  return dirname(fileURLToPath(import.meta.url));
}
