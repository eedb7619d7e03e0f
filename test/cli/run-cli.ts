/**
 * Runs queue-cli from source as a child process (through tsx, found by absolute path so the
 * working directory can be any temp folder), as a user runs it: arguments, exit code, output.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = join(ROOT, 'src/cli/index.ts');
export const TSX = import.meta.resolve('tsx');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function cli(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function tempProject(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `queuedev-${prefix}-`));
}

export function show(run: Run): string {
  return `exit ${String(run.code)}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
}

/** Runs this tree's tsc on the project in `dir` (or the tsconfig file it names); exit code and the compiler's output. */
export function typeCheck(dir: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

/** Where a project's `paths` send `queuedev` and `queuedev/dashboard`. */
export interface QueuedevTypes {
  index: string;
  dashboard: string;
  /** Removes what was emitted (nothing for the source). */
  remove(): void;
}

/**
 * Declarations of queuedev's two entry points, emitted from this tree's source without a type
 * check (the project's own typecheck checks the source), for projects that map `queuedev` to
 * them, as an installed package's declarations are: checking such a project then costs what its
 * own files do, not another check of queuedev's whole source. They are written under
 * node_modules/.cache, so the packages they import resolve from this tree's node_modules.
 */
export async function emitQueuedevTypes(): Promise<QueuedevTypes> {
  const cache = join(ROOT, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'queuedev-types-'));
  const out = join(dir, 'types');
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.json'),
      compilerOptions: {
        noEmit: false,
        emitDeclarationOnly: true,
        noCheck: true,
        rootDir: join(ROOT, 'src'),
        outDir: out,
      },
      files: [join(ROOT, 'src/index.ts'), join(ROOT, 'src/dashboard/index.ts')],
      include: [],
    }),
  );
  const emitted = await typeCheck(dir);
  if (emitted.code !== 0) throw new Error(`emitting queuedev's declarations failed:\n${emitted.output}`);
  return {
    index: join(out, 'index.d.ts'),
    dashboard: join(out, 'dashboard/index.d.ts'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
