/**
 * The examples are written as an application would write them: they import queuedev only through
 * the package's public entry points (`queuedev`, `queuedev/dashboard`), never a file of src/, so
 * everything they show (migrate() included) is reachable from the published package.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
const PUBLIC_ENTRY_POINTS = ['queuedev', 'queuedev/dashboard'];

/** Every module specifier of `import ... from '...'`, `export ... from '...'` and `import('...')`. */
function specifiersOf(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) found.push(match[1]!);
  return found;
}

it('examples import queuedev only through its public entry points', () => {
  const files = readdirSync(EXAMPLES).filter((file) => file.endsWith('.ts'));
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) {
    const specifiers = specifiersOf(readFileSync(`${EXAMPLES}${file}`, 'utf8'));
    // Relative imports would reach into the repository; Node built-ins and drivers are fine.
    const internal = specifiers.filter((s) => s.startsWith('.') || s.startsWith('/'));
    expect(internal, `${file} imports`).toEqual([]);
    expect(
      specifiers.filter((s) => s.startsWith('queuedev')).every((s) => PUBLIC_ENTRY_POINTS.includes(s)),
      `${file} imports`,
    ).toBe(true);
  }
  // The demo migrates through the package's migrate(), the path queue-cli and the tests take.
  expect(readFileSync(`${EXAMPLES}demo.ts`, 'utf8')).toMatch(/import \{[^}]*\bmigrate\b[^}]*\} from 'queuedev'/);
});
