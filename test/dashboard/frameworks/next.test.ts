/**
 * The dashboard in a Next.js App Router app served by `next start`: next-app/ mounts it with the
 * one-liner docs/dashboard.md shows (`export const { GET, POST } = dashboard` in
 * app/admin/jobs/[[...path]]/route.ts). The app has its own package.json and lock, installed here
 * when missing; it is built once per change of its inputs (queuedev's source included, about a
 * minute on two cores), then each test starts a server on that test's schema or key prefix.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll } from 'vitest';
import { PG_URL, REDIS_URL, type BackendContext } from '../../helpers/backends.js';
import { describeMount, type MountedServer } from './support.js';

const APP = fileURLToPath(new URL('./next-app', import.meta.url));
const ROOT = join(APP, '../../../..');
const NEXT = join(APP, 'node_modules/next/dist/bin/next');
/** Where a build records the hash of the inputs it was built from. */
const STAMP = join(APP, '.next/queuedev-inputs.sha256');

/** Runs a command in the app's folder; rejects with its output when it fails. */
function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: APP, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`)),
    );
  });
}

/** Every file under `dir` except installed packages and build output, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => !/(^|\/)(node_modules|\.next)(\/|$)/.test(f) && !f.endsWith('next-env.d.ts'))
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile())
    .sort();
}

/** A hash of what the build compiles: the app, the echo probe and queuedev's source. */
function inputsHash(): string {
  const hash = createHash('sha256');
  for (const file of [...filesUnder(APP), join(APP, '../echo.ts'), ...filesUnder(join(ROOT, 'src'))]) {
    hash.update(file).update(readFileSync(file));
  }
  return hash.digest('hex');
}

beforeAll(async () => {
  if (!existsSync(NEXT)) await run('npm', ['ci', '--no-audit', '--no-fund']);
  const hash = inputsHash();
  if (existsSync(STAMP) && readFileSync(STAMP, 'utf8') === hash) return;
  // webpack: its resolver maps queuedev's './x.js' imports to the TypeScript source (next.config.mjs).
  await run(process.execPath, [NEXT, 'build', '--webpack']);
  writeFileSync(STAMP, hash);
}, 600_000);

/** A port free a moment ago, for `next start`, which needs one named. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The store of the test, as lib/dashboard.ts reads it. */
function storeEnv(ctx: BackendContext): Record<string, string> {
  return ctx.backend === 'redis'
    ? { QD_NEXT_BACKEND: 'redis', REDIS_URL, QD_NEXT_KEY_PREFIX: ctx.keyPrefix }
    : { QD_NEXT_BACKEND: 'postgres', PG_QUEUE_DATABASE: PG_URL, QD_NEXT_SCHEMA: ctx.schema };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Starts `next start` for the test's store and resolves once it answers on /health. */
async function startNext(ctx: BackendContext): Promise<MountedServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [NEXT, 'start', '--port', String(port), '--hostname', '127.0.0.1'], {
    cwd: APP,
    env: { ...process.env, ...storeEnv(ctx), NEXT_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited ${child.exitCode}:\n${output}`);
    try {
      if ((await fetch(`${origin}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop(child);
      throw new Error(`next start did not answer within 30 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { origin, close: () => stop(child) };
}

describeMount('Next.js (App Router, next start)', startNext, {
  skip: {
    pglite: 'the Next.js server is another process, and an embedded PGlite database serves its own process only',
    'redis-cluster': 'the fixture app connects to one Redis server; the mount does not depend on the store',
  },
});
