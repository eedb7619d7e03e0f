/**
 * Private PostgreSQL and Redis servers for tests that stop, flush or lock out a store, so the
 * shared servers other tests use are never touched. Each listens on a free local port and is
 * removed by `stop()`. PostgreSQL needs its server binaries (initdb, pg_ctl); as root, the
 * cluster runs as the `postgres` user, since PostgreSQL refuses to run as root.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, chownSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { waitFor } from './wait.js';

export interface PrivateServer {
  readonly port: number;
  /** Stops the server and removes its files; harmless when already stopped. */
  stop(): Promise<void>;
}

/** A port nothing listens on right now (bound, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Waits for a server to answer: a probe that throws (not up yet) counts as "not yet". */
function until(check: () => Promise<boolean>, what: string): Promise<boolean> {
  return waitFor(() => check().catch(() => false), { what, timeoutMs: 20_000, intervalMs: 50 });
}

/**
 * A redis-server without persistence, optionally with `requirepass`, further settings
 * (`['--maxmemory-policy', 'allkeys-lru']`) and a given port (by default a free one).
 */
export async function startPrivateRedis(
  options: { password?: string; args?: string[]; port?: number } = {},
): Promise<PrivateServer> {
  const port = options.port ?? (await freePort());
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  if (options.password) args.push('--requirepass', options.password);
  args.push(...(options.args ?? []));
  const child: ChildProcess = spawn('redis-server', args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await until(async () => {
    const probe = new Redis({
      port,
      password: options.password,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => {});
    try {
      await probe.connect();
      await probe.ping(); // rejects until the server answers
      return true;
    } finally {
      probe.disconnect();
    }
  }, `redis-server on port ${port}`);
  return {
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

function run(file: string, args: string[], asPostgres: boolean): Promise<void> {
  const [command, commandArgs] = asPostgres ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  return new Promise((resolve, reject) => {
    execFile(command, commandArgs, { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} failed: ${stderr || stdout || error.message}`));
      else resolve();
    });
  });
}

function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const dir = versions.map((v) => join(root, v, 'bin')).find((d) => existsSync(join(d, 'initdb')));
  if (!dir)
    throw new Error(
      `These tests start a private PostgreSQL cluster and need initdb and pg_ctl under ${root}/<version>/bin`,
    );
  return dir;
}

/** A fresh PostgreSQL cluster whose `postgres` user logs in with `password` (scram-sha-256). */
export async function startPrivatePostgres(options: { password: string }): Promise<PrivateServer> {
  const bin = postgresBinDir();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'queuedev-pg-'));
  const asPostgres = userInfo().uid === 0;
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${options.password}\n`);
  if (asPostgres) {
    const { uid, gid } = await postgresIds();
    chownSync(dir, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  const data = join(dir, 'data');
  await run(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=scram-sha-256', `--pwfile=${pwfile}`, '-N'],
    asPostgres,
  );
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  await run(join(bin, 'pg_ctl'), ['-D', data, '-o', serverOptions, '-l', join(dir, 'log'), '-w', 'start'], asPostgres);
  let stopped = false;
  return {
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      await run(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], asPostgres).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresIds(): Promise<{ uid: number; gid: number }> {
  return new Promise((resolve, reject) => {
    execFile('id', ['-u', 'postgres'], (e1, uid) => {
      if (e1) {
        reject(new Error('Running as root, the private cluster needs a `postgres` user'));
        return;
      }
      execFile('id', ['-g', 'postgres'], (e2, gid) => {
        if (e2) reject(new Error(`id -g postgres failed: ${e2.message}`, { cause: e2 }));
        else resolve({ uid: Number(uid), gid: Number(gid) });
      });
    });
  });
}
