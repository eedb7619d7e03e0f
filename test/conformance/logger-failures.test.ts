/**
 * A logger that fails never changes what the queue does (docs/configuration.md, "Logging"):
 * methods that throw, return rejected promises or rejecting thenables, in a real process with
 * Node's default `--unhandled-rejections=throw`, where one unhandled rejection would end it with
 * code 1. The process is test/fixtures/failing-logger-worker.ts.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { PG_URL, REDIS_URL, forEachBackend } from '../helpers/backends.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/failing-logger-worker.ts', import.meta.url));

interface Report {
  counts: Record<string, number>;
  calls: Record<'debug' | 'info' | 'warn' | 'error', number>;
  failedOnce: boolean;
}

forEachBackend('a logger that fails, in a process of its own', (ctx) => {
  /** Runs the fixture on the test's store (on PGlite, an in-memory database of its own). */
  function runProcess(jobs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = fork(FIXTURE, [], {
      execArgv: ['--import', 'tsx', '--unhandled-rejections=throw'],
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: {
        ...process.env,
        QD_BACKEND: ctx.target === 'pglite' ? 'pglite' : ctx.backend,
        QD_PG_URL: PG_URL,
        QD_SCHEMA: ctx.schema,
        QD_REDIS_URL: REDIS_URL,
        QD_REDIS_CLUSTER: ctx.clusterNodes,
        QD_PREFIX: ctx.keyPrefix,
        QD_JOBS: String(jobs),
      },
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  }

  it('exits 0 with every job completed when each logger method throws or rejects', async () => {
    const { code, stdout, stderr } = await runProcess(20);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as Report;
    expect(report.counts).toEqual({ pending: 0, processing: 0, completed: 20, failed: 0, cancelled: 0, waiting: 0 });
    expect(report.failedOnce).toBe(true);
    // Every kind of failure was met: debug lines rejected (promise and thenable), the telemetry
    // warning and the failed attempt's warning threw, the error line rejected.
    expect(report.calls.debug).toBeGreaterThanOrEqual(2);
    expect(report.calls.warn).toBe(2);
    expect(report.calls.error).toBeGreaterThanOrEqual(1);
    // A process starting tsx (and on PGlite a WebAssembly database) on a loaded machine: room to start.
  }, 120_000);
});
