/**
 * The code samples of the shipped skills and rules compile against the current API: every
 * ```ts block of assistants/ becomes a module of a strict project, checked by tsc with queuedev
 * resolved to this tree's source.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT, tempProject, typeCheck } from './run-cli.js';

const ASSETS = join(ROOT, 'assistants');
const dir = tempProject('samples');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function markdownFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? markdownFiles(join(folder, entry.name))
      : entry.name.endsWith('.md')
        ? [join(folder, entry.name)]
        : [],
  );
}

it('every TypeScript sample in the skills and rules type-checks', { timeout: 120_000 }, async () => {
  const samples = markdownFiles(ASSETS).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m, i) => ({
      name: `${relative(ASSETS, file).replace(/[/.]/g, '_')}_${i}.ts`,
      code: m[1]!,
    })),
  );
  expect(samples.length).toBeGreaterThanOrEqual(2);
  mkdirSync(join(dir, 'samples'));
  // Each sample is its own module; `export {}` keeps one that exports nothing a module too.
  for (const { name, code } of samples) writeFileSync(join(dir, 'samples', name), `${code}\nexport {};\n`);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        target: 'es2022',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
        paths: { queuedev: [join(ROOT, 'src/index.ts')], 'queuedev/dashboard': [join(ROOT, 'src/dashboard/index.ts')] },
      },
      include: ['samples'],
    }),
  );
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
  const result = await typeCheck(dir);
  expect(result.code, result.output).toBe(0);
});
