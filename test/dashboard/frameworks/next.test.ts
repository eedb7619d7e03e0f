/**
 * The dashboard in a Next.js App Router app served by `next start`, as an application installs
 * it: next-app/ mounts it with the one-liner docs/dashboard.md shows (`export const { GET, POST }
 * = dashboard` in app/admin/jobs/[[...path]]/route.ts) and imports `queuedev` from its
 * node_modules, where this repository's package is built (`tsup`, then `next build`), with the
 * `serverExternalPackages` setting the docs give. The app has its own package.json and
 * lock, installed here when missing; the builds run again only when their inputs (queuedev's
 * source included) change, about a minute and a half on two cores, and each test starts a
 * server on its own schema or key prefix.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll } from 'vitest';
import { PG_URL, REDIS_URL, type BackendContext } from '../../helpers/backends.js';
import { describeMount, type MountedServer } from './support.js';

const APP = fileURLToPath(new URL('./next-app', import.meta.url));
const ROOT = join(APP, '../../../..');
const NEXT = join(APP, 'node_modules/next/dist/bin/next');
/** queuedev in the app's node_modules, built from this repository. */
const PACKAGE = join(APP, 'node_modules/queuedev');
/** Where a build records the hash of the inputs it was built from. */
const STAMP = join(APP, '.next/queuedev-inputs.sha256');

/** Runs a command in `cwd`; rejects with its output when it fails. */
function run(command: string, args: string[], cwd = APP, env: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`)),
    );
  });
}

/** Every file under `dir`, skipping installed packages and build output, sorted. */
function filesUnder(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', '.next', 'next-env.d.ts'].includes(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...filesUnder(path));
    else if (entry.isFile()) files.push(path);
  }
  return files.sort();
}

/** A hash of what the builds compile: the app, the echo probe and the package. */
function inputsHash(): string {
  const hash = createHash('sha256');
  const files = [
    ...filesUnder(APP),
    join(APP, '../echo.ts'),
    join(ROOT, 'package.json'),
    join(ROOT, 'tsup.config.ts'),
    ...filesUnder(join(ROOT, 'src')),
  ];
  for (const file of files) hash.update(file).update(readFileSync(file));
  return hash.digest('hex');
}

beforeAll(async () => {
  const started = Date.now();
  const log = (step: string) => console.log(`next fixture: ${step} after ${Date.now() - started} ms`);
  if (!existsSync(NEXT)) await run('npm', ['ci', '--no-audit', '--no-fund']);
  const hash = inputsHash();
  if (existsSync(STAMP) && readFileSync(STAMP, 'utf8') === hash && existsSync(join(PACKAGE, 'dist'))) return;
  // The package as npm would install it: package.json and a dist/ of its own (not the
  // repository's dist/, which other tests rebuild); its dependencies resolve from the
  // repository's node_modules, further up.
  if (existsSync(PACKAGE) && lstatSync(PACKAGE).isSymbolicLink()) unlinkSync(PACKAGE);
  rmSync(PACKAGE, { recursive: true, force: true });
  mkdirSync(PACKAGE, { recursive: true });
  copyFileSync(join(ROOT, 'package.json'), join(PACKAGE, 'package.json'));
  await run(
    process.execPath,
    [join(ROOT, 'node_modules/tsup/dist/cli-default.js'), '--out-dir', join(PACKAGE, 'dist')],
    ROOT,
  );
  log('package built');
  // webpack: its resolver compiles the echo probe from TypeScript source (next.config.mjs).
  // Next.js imports the route modules while it builds, and lib/dashboard.ts makes its queue at
  // import: the connection string must be set and well formed then (nothing connects).
  await run(process.execPath, [NEXT, 'build', '--webpack'], APP, { PG_QUEUE_DATABASE: PG_URL });
  writeFileSync(STAMP, hash);
  log('app built');
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
