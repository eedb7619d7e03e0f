/**
 * Runs queue-cli from source as a child process (through tsx, found by absolute path so the
 * working directory can be any temp folder), as a user runs it: arguments, exit code, output.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
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

/** Runs this tree's tsc on the project in `dir`; exit code and the compiler's output. */
export function typeCheck(dir: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}
