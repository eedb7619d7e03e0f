/**
 * The demo (`npm run demo`) against a store that is down: it exits non-zero with the reason,
 * instead of hanging or exiting 0 with a close() that never settled.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const DEMO = fileURLToPath(new URL('../../examples/demo.ts', import.meta.url));
const DOWN = '127.0.0.1:1'; // port 1: nothing listens there

function runDemo(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', DEMO, ...args],
      { env: { ...process.env, ...env }, timeout: 50_000 },
      (error, _stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr }),
    );
    child.stdin?.end();
  });
}

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
