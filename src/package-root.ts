/**
 * Finds the root of the installed queuedev package. The code runs from src/ (tsx, vitest) or
 * from the bundled dist/ files at different depths, so walk up from this module's directory to
 * the first package.json named queuedev. Used to read the shipped migrations and the version.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'queuedev';

export function findPackageRoot(start: string = moduleDir()): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (readPackageJson(dir)?.name === PACKAGE_NAME) return dir;
    if (dirname(dir) === dir) throw new Error(`Could not find the ${PACKAGE_NAME} package.json above ${start}`);
  }
}

/** The version field of the package's own package.json. */
export function packageVersion(): string {
  return String(readPackageJson(findPackageRoot())?.version);
}

function readPackageJson(dir: string): { name?: unknown; version?: unknown } | undefined {
  const file = join(dir, 'package.json');
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
  } catch {
    return undefined;
  }
}

function moduleDir(): string {
  // tsup's shims make import.meta.url work in the CommonJS build too.
  return dirname(fileURLToPath(import.meta.url));
}
