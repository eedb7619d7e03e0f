/**
 * The published declarations (what `npm run build` writes for `queuedev` and
 * `queuedev/dashboard`) keep the store off the public types: no `Backend` interface, no
 * `JobQueue.backend`, no constructor taking a backend, no `backendOf`. Built here with the
 * package's own tsup configuration into a temporary folder, then read with the TypeScript parser.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The Backend interface and the store interfaces it extends (src/backend.ts). */
const INTERNAL_NAMES = ['Backend', 'CronStore', 'WaitStore', 'backendOf'];

let outDir: string;
let files: ts.SourceFile[];

function build(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      join(ROOT, 'node_modules', '.bin', 'tsup'),
      ['--dts-only', '--out-dir', dir],
      { cwd: ROOT },
      (err, stdout, stderr) => (err ? reject(new Error(`tsup failed: ${stdout}\n${stderr}`)) : resolve()),
    );
  });
}

function declarationFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.d.ts') || f.endsWith('.d.cts'))
    .map((f) => join(dir, f));
}

function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  ts.forEachChild(node, (child) => walk(child, visit));
}

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'queuedev-dts-'));
  await build(outDir);
  files = declarationFiles(outDir).map((f) =>
    ts.createSourceFile(f, readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true),
  );
}, 180_000);

afterAll(() => {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

describe('published declarations', () => {
  it('declare both entry points', () => {
    const names = files.map((f) => f.fileName.slice(outDir.length + 1).replaceAll('\\', '/'));
    expect(names).toEqual(
      expect.arrayContaining(['index.d.ts', 'index.d.cts', 'dashboard/index.d.ts', 'dashboard/index.d.cts']),
    );
  });

  it('never name the Backend interface, its parts or backendOf', () => {
    const found: string[] = [];
    for (const file of files) {
      walk(file, (n) => {
        if (ts.isIdentifier(n) && INTERNAL_NAMES.includes(n.text))
          found.push(`${n.text} in ${file.fileName.slice(outDir.length + 1)}`);
      });
    }
    expect(found).toEqual([]);
  });

  it('give JobQueue no backend member and only a private constructor without parameters', () => {
    const classes: ts.ClassDeclaration[] = [];
    for (const file of files) {
      walk(file, (n) => {
        if (ts.isClassDeclaration(n) && n.name?.text === 'JobQueue') classes.push(n);
      });
    }
    expect(classes.length).toBeGreaterThan(0);
    for (const cls of classes) {
      const names = cls.members.map((m) => (m.name && ts.isIdentifier(m.name) ? m.name.text : undefined));
      expect(names).not.toContain('backend');
      const constructors = cls.members.filter(ts.isConstructorDeclaration);
      expect(constructors).toHaveLength(1);
      expect(constructors[0]!.modifiers?.map((m) => m.kind)).toEqual([ts.SyntaxKind.PrivateKeyword]);
      expect(constructors[0]!.parameters).toHaveLength(0);
    }
  });
});
