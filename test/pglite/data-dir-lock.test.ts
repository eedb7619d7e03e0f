/**
 * The lock on a PGlite data directory: a second opener, in another process or in this one, is
 * refused with DataDirLockedError naming the holder, so no acknowledged add is lost; a lock left
 * by a process that died is taken over; the holder's close() and exit release it. Other
 * processes are real child processes (test/fixtures/pglite-data-dir.ts).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { afterEach, describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../src/backends/postgres/pglite-lock.js';
import { DataDirLockedError, initJobQueue, migrate, type PGliteInstance } from '../../src/index.js';
import { useQueues } from '../helpers/backends.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/pglite-data-dir.ts', import.meta.url));

interface Opened {
  child: ChildProcess;
  /** The first message: the ids of its first adds, or the refusal. */
  first: Message;
  next(): Promise<Message>;
  exited: Promise<void>;
}
interface Message {
  acked?: number[];
  pid?: number;
  refused?: { code: string; pid: number; hostname: string; message: string };
}

// Each child process starts PGlite and migrates a new database: slow on a busy machine.
describe('the lock on a PGlite data directory', { timeout: 180_000 }, () => {
  let dirs: string[] = [];
  let children: ChildProcess[] = [];
  const track = useQueues();

  afterEach(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    children = [];
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    dirs = [];
  });

  function dataDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'queuedev-lock-'));
    dirs.push(dir);
    return join(dir, 'data');
  }

  /** Starts a process opening a queue on `dir`; resolves with its first message. */
  async function openInChild(dir: string, adds: number): Promise<Opened> {
    const child = fork(FIXTURE, [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      env: { ...process.env, QD_DATA_DIR: dir, QD_ADDS: String(adds) },
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const messages: Message[] = [];
    const waiting: ((m: Message) => void)[] = [];
    child.on('message', (m: Message) => {
      const take = waiting.shift();
      if (take) take(m);
      else messages.push(m);
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const next = () =>
      new Promise<Message>((resolve, reject) => {
        const queued = messages.shift();
        if (queued) {
          resolve(queued);
          return;
        }
        waiting.push(resolve);
        void exited.then(() => reject(new Error(`the child exited (${child.exitCode}) before answering: ${stderr}`)));
      });
    return { child, first: await next(), next, exited };
  }

  /** Every job the directory holds, after the processes that wrote it have gone. */
  async function jobIdsIn(dir: string): Promise<number[]> {
    const queue = track(initJobQueue({ pglite: { dataDir: dir }, migrate: true }));
    const jobs = await queue.getJobs({}, 1000);
    return jobs.map((j) => j.id).sort((a, b) => a - b);
  }

  function lockOf(dir: string): { pid: number; hostname: string; token: string } {
    return JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as { pid: number; hostname: string; token: string };
  }

  /** The pid of a process that has exited. */
  async function deadPid(): Promise<number> {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('exit', resolve));
    return child.pid!;
  }

  it('refuses a second process while one holds the directory, naming the holder, and no acknowledged add is lost', async () => {
    const dir = dataDir();
    const holder = await openInChild(dir, 1);
    expect(holder.first.acked).toHaveLength(1);

    const second = await openInChild(dir, 300);
    expect(second.first.refused).toMatchObject({
      code: 'DATA_DIR_LOCKED',
      pid: holder.first.pid,
      hostname: hostname(),
    });
    expect(second.first.refused?.message).toContain(`in use by process ${holder.first.pid}`);
    await second.exited;

    holder.child.send({ add: 300 });
    const more = await holder.next();
    holder.child.send({ close: true });
    await holder.exited;
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    expect(await jobIdsIn(dir)).toEqual([...holder.first.acked!, ...more.acked!]);
  });

  it('two processes adding 300 jobs each on one directory at once: every acknowledged add survives, no id twice', async () => {
    const dir = dataDir();
    const [a, b] = await Promise.all([openInChild(dir, 300), openInChild(dir, 300)]);
    for (const p of [a, b]) if (p.first.acked) p.child.send({ close: true });
    await Promise.all([a.exited, b.exited]);
    const acked = [a, b].flatMap((p) => p.first.acked ?? []);
    // One of them was refused while the other held the directory, unless it came after the
    // other had closed; either way nothing acknowledged is missing and no id was handed out twice.
    for (const p of [a, b]) if (p.first.refused) expect(p.first.refused.code).toBe('DATA_DIR_LOCKED');
    expect(acked.length).toBeGreaterThanOrEqual(300);
    expect(new Set(acked).size).toBe(acked.length);
    expect(await jobIdsIn(dir)).toEqual([...acked].sort((x, y) => x - y));
  });

  it('takes over the lock of a process killed while it held the directory', async () => {
    const dir = dataDir();
    const holder = await openInChild(dir, 1);
    holder.child.kill('SIGKILL');
    await holder.exited;
    expect(lockOf(dir).pid).toBe(holder.first.pid);

    const queue = track(initJobQueue({ pglite: { dataDir: dir }, migrate: true }));
    expect(lockOf(dir).pid).toBe(process.pid);
    await queue.addJob({ jobType: 'after', payload: {} });
  });

  it('takes over a lock file naming a process that no longer runs', async () => {
    const dir = dataDir();
    mkdirSync(dir);
    const pid = await deadPid();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid, hostname: hostname(), token: 'old', since: 'then' }));
    const queue = track(initJobQueue({ pglite: { dataDir: dir }, migrate: true }));
    await queue.addJob({ jobType: 'after', payload: {} });
    expect(lockOf(dir)).toMatchObject({ pid: process.pid });
    await queue.close();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  // The start time of a process is read from /proc, so only Linux tells a reused pid apart.
  it.runIf(process.platform === 'linux')(
    'takes over a lock whose pid now belongs to a process started at another time',
    async () => {
      const dir = dataDir();
      mkdirSync(dir);
      const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      // This test's own parent runs now, but did not start at clock tick 1.
      const lock = { pid: process.ppid, hostname: hostname(), bootId, startTime: '1', token: 'old', since: 'then' };
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify(lock));
      track(initJobQueue({ pglite: { dataDir: dir }, migrate: true }));
      expect(lockOf(dir)).toMatchObject({ pid: process.pid });
    },
  );

  it('refuses a lock held on another host, which this machine cannot check, naming the host and the file', () => {
    const dir = dataDir();
    mkdirSync(dir);
    const lock = { pid: 4242, hostname: 'elsewhere.example', token: 'theirs', since: '2026-01-01T00:00:00.000Z' };
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(lock));
    const open = () => initJobQueue({ pglite: { dataDir: dir } });
    expect(open).toThrow(DataDirLockedError);
    expect(open).toThrow(`in use by process 4242 on host elsewhere.example`);
    expect(open).toThrow(`delete ${join(dir, LOCK_FILE)}`);
    expect(lockOf(dir).token).toBe('theirs');
  });

  it('refuses a second queue on the same directory in this process, until the first closes', async () => {
    const dir = dataDir();
    const first = initJobQueue({ pglite: { dataDir: dir }, migrate: true });
    await first.addJob({ jobType: 'a', payload: {} });
    let error: unknown;
    try {
      initJobQueue({ pglite: { dataDir: dir } });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DataDirLockedError);
    expect(error).toMatchObject({ code: 'DATA_DIR_LOCKED', pid: process.pid, dataDir: expect.any(String) });
    expect((error as Error).message).toContain(`already open in this process (pid ${process.pid})`);
    await first.close();
    const second = track(initJobQueue({ pglite: { dataDir: dir } }));
    expect(await second.getJobs()).toHaveLength(1);
  });

  it('a PGlite instance of the caller shares its hold between migrate() and the queue, and releases it on close', async () => {
    const dir = dataDir();
    const db = (await PGlite.create(dir)) as unknown as PGliteInstance;
    try {
      await migrate({ pglite: db });
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
      const queue = initJobQueue({ pglite: db });
      expect(lockOf(dir).pid).toBe(process.pid);
      await migrate({ pglite: db });
      await queue.addJob({ jobType: 'a', payload: {} });
      expect(() => initJobQueue({ pglite: { dataDir: dir } })).toThrow(DataDirLockedError);
      await queue.close();
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    } finally {
      await db.close();
    }
  });

  it('refuses migrate() and a queue on a PGlite instance of a directory another process holds', async () => {
    const dir = dataDir();
    const holder = await openInChild(dir, 1);
    const db = (await PGlite.create(dir)) as unknown as PGliteInstance;
    try {
      await expect(migrate({ pglite: db })).rejects.toMatchObject({ code: 'DATA_DIR_LOCKED', pid: holder.first.pid });
      expect(() => initJobQueue({ pglite: db })).toThrow(`in use by process ${holder.first.pid}`);
    } finally {
      await db.close();
    }
  });

  it('removes the lock when the holding process exits without closing its queue', async () => {
    const dir = dataDir();
    const holder = await openInChild(dir, 1);
    expect(lockOf(dir).pid).toBe(holder.first.pid);
    holder.child.send({ exit: true });
    await holder.exited;
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });
});
