/**
 * The demo (`npm run demo`): with no server named it runs on an embedded PGlite and needs
 * nothing installed beyond the packages; against a store that is down it exits non-zero with the
 * reason, instead of hanging or exiting 0 with a close() that never settled.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const DEMO = fileURLToPath(new URL('../../examples/demo.ts', import.meta.url));
const DOWN = '127.0.0.1:1'; // port 1: nothing listens there

/** Runs the demo with `env` over this process's environment, less the names in `unset`. */
function runDemo(
  args: string[],
  env: Record<string, string>,
  unset: string[] = [],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !unset.includes(name)));
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', DEMO, ...args],
      { env: { ...base, ...env }, timeout: 50_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

it('runs on an embedded PGlite when no server is named, as it runs on a server', { timeout: 60_000 }, async () => {
  const { code, stdout, stderr } = await runDemo([], {}, ['PG_QUEUE_DATABASE', 'DEMO_BACKEND']);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(stdout).toContain('Backend: PostgreSQL embedded in this process (PGlite, in memory)');
  expect(stdout).toContain('duplicate   -> id 1 (same key as job 1: no new job)');
  expect(stdout).toContain('8 job(s) processed in total');
  expect(stdout).toMatch(/completed\s+7\n/);
  expect(stdout).toContain('History of job 4 (webhook.deliver): added -> processing -> failed');
});

it('uses the server named by --postgres, DEMO_BACKEND=postgres or PG_QUEUE_DATABASE', { timeout: 60_000 }, async () => {
  const down = { PG_QUEUE_DATABASE: `postgres://postgres@${DOWN}/none` };
  for (const [args, env] of [
    [['--postgres'], down],
    [[], { ...down, DEMO_BACKEND: 'postgres' }],
  ] as const) {
    const { code, stderr } = await runDemo([...args], env, ['DEMO_BACKEND']);
    expect(code).toBe(1);
    expect(stderr).toContain(`Is PostgreSQL reachable at postgres://postgres@${DOWN}/none?`);
  }
});

it('exits non-zero with the reason when Redis is down', { timeout: 60_000 }, async () => {
  const { code, stderr } = await runDemo(['--redis'], { REDIS_URL: `redis://${DOWN}` });
  expect(code).toBe(1);
  expect(stderr).toContain('The demo failed:');
  expect(stderr).toContain(`Is Redis reachable at redis://${DOWN}?`);
});

it('exits non-zero with the reason when PostgreSQL is down', { timeout: 60_000 }, async () => {
  const { code, stderr } = await runDemo([], { PG_QUEUE_DATABASE: `postgres://postgres@${DOWN}/none` });
  expect(code).toBe(1);
  expect(stderr).toContain('The demo failed:');
  expect(stderr).toContain('ECONNREFUSED');
});
