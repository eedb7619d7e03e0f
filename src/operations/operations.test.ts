/**
 * One home per behaviour: the job lifecycle hooks are emitted by the operations layer only, and
 * the store-write retry schedule is defined once. Static checks over src/, so a new caller that
 * emits a hook or copies the schedule fails here rather than drifting.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import type { QueueEvents } from '../events.js';

const SRC = join(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Source files (relative to src/, forward slashes) whose text matches `pattern`. */
function filesMatching(pattern: RegExp): string[] {
  return sourceFiles(SRC)
    .filter((path) => pattern.test(readFileSync(path, 'utf8')))
    .map((path) => relative(SRC, path).split('\\').join('/'))
    .sort();
}

it('emits every job:* hook from operations/hooks.ts only', () => {
  expect(filesMatching(/\.emit\(\s*['"`]job:/)).toEqual(['operations/hooks.ts']);
});

it('subclasses QueueEvents (the only way to reach its emit) in operations/hooks.ts only', () => {
  expect(filesMatching(/extends\s+QueueEvents\b/)).toEqual(['operations/hooks.ts']);
});

it('keeps QueueEvents.emit off the public type', () => {
  // Type-checked: if `emit` became public, `keyof QueueEvents` would include it and this
  // assignment would not compile.
  const emitIsPublic: 'emit' extends keyof QueueEvents ? true : false = false;
  expect(emitIsPublic).toBe(false);
});

it('defines the store-write retry schedule once', () => {
  expect(filesMatching(/RETRY_DELAYS_MS\s*(:[^=]*)?=\s*\[/)).toEqual(['operations/write-retries.ts']);
});
