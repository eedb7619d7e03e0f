/**
 * The lock on a PGlite data directory. Two PostgreSQL instances on one directory (two processes,
 * or two PGlite instances in one) overwrite each other's files and lose acknowledged writes, so
 * whoever opens a directory first holds `queuedev.lock` inside it until it closes, and every
 * later opener is refused with a DataDirLockedError naming the holder.
 *
 * The lock file names its holder: pid, host name, and on Linux the boot and the process's start
 * time, so a lock left by a process that died (killed, crashed) is taken over even when its pid
 * was given to another process since. Every write is atomic: a lock is created complete (a temp
 * file hard-linked into place, which fails when the lock exists), and only an opener holding the
 * short-lived `queuedev.lock.takeover` file may remove a lock that is not its own, after reading
 * it again, so two openers that find the same stale lock never both take it.
 *
 * One process holds each directory once: the queue of a `{ dataDir }` holds it for its
 * instance's life, and migrate() and a queue given the same PGlite instance share that hold.
 * Locks left at exit without close() are removed by an exit hook. See docs/backends.md (PGlite).
 */
import { randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, realpathSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, DataDirLockedError } from '../../errors.js';
import type { PGliteInstance } from '../../types.js';

export const LOCK_FILE = 'queuedev.lock';
const TAKEOVER_FILE = 'queuedev.lock.takeover';

/** What a lock file holds. */
interface Holder {
  pid: number;
  hostname: string;
  /** Linux: /proc/sys/kernel/random/boot_id and the process's start time in clock ticks after boot. */
  bootId?: string;
  startTime?: string;
  token: string;
  since: string;
}

/** A directory this process holds, and how many users (a queue, migrate() runs) share the hold. */
interface Held {
  dir: string;
  file: string;
  token: string;
  users: number;
}

const held = new Map<string, Held>();
const byInstance = new WeakMap<PGliteInstance, Held>();

/** Ends one use of a hold; the last one removes the lock file. Calling it again does nothing. */
export type ReleaseLock = () => void;

/**
 * The directory on disk a PGlite `dataDir` names, as PGlite reads it: a path, or `file://` and a
 * path; undefined for memory (no dataDir, `memory://`) and the browser's stores.
 */
export function dataDirPath(dataDir: string | undefined): string | undefined {
  if (dataDir === undefined || dataDir === '') return undefined;
  if (dataDir.startsWith('file://')) return resolve(dataDir.slice('file://'.length));
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(dataDir) ? undefined : resolve(dataDir);
}

/**
 * Locks the directory the library is about to open a PGlite instance on; undefined when it is
 * in memory, or when it is no directory and cannot be created (PGlite, creating it the same way,
 * then fails every statement with the same error). Throws DataDirLockedError when it is held.
 */
export function lockDataDir(dataDir: string | undefined): Held | undefined {
  const path = dataDirPath(dataDir);
  if (path === undefined) return undefined;
  try {
    // Not recursive, as PGlite creates it: a missing parent fails here and there alike.
    mkdirSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(path).isDirectory()) return undefined;
  }
  const dir = realpathSync(path);
  const mine = held.get(dir);
  if (mine) throw lockedError(dir, join(dir, LOCK_FILE), ownHolder(mine.token));
  const entry: Held = { dir, file: join(dir, LOCK_FILE), token: randomUUID(), users: 1 };
  take(entry);
  held.set(dir, entry);
  releaseAtExit();
  return entry;
}

/** Hands a hold taken by lockDataDir() to the instance opened on it, for migrate() to share. */
export function attachLock(instance: PGliteInstance, lock: Held): void {
  byInstance.set(instance, lock);
}

/**
 * Locks the data directory of a PGlite instance the queue or migrate() is given, or shares the
 * hold this process already has for that instance. Nothing for an instance in memory.
 */
export function lockInstanceDataDir(instance: PGliteInstance): ReleaseLock {
  let lock = byInstance.get(instance);
  if (lock && held.get(lock.dir) === lock) lock.users++;
  else {
    lock = lockDataDir(instance.dataDir);
    if (lock) byInstance.set(instance, lock);
  }
  return lock ? releaser(lock) : () => undefined;
}

/** @internal The release of one use of `lock`, at most once. */
export function releaser(lock: Held): ReleaseLock {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (--lock.users > 0) return;
    held.delete(lock.dir);
    removeIfMine(lock);
  };
}

/** Creates the lock file, taking over a stale one; throws DataDirLockedError when it is held. */
function take(lock: Held): void {
  const text = JSON.stringify(ownHolder(lock.token));
  while (!createComplete(lock.file, text, lock.token)) {
    const found = readHolder(lock.file);
    if (found === 'gone') continue;
    // Locks are created complete: one that cannot be read was not written by this library.
    if (found === 'unreadable' || isAlive(found)) throw lockedError(lock.dir, lock.file, found);
    removeStale(lock, found);
  }
}

/** Writes `text` to a temp file and links it in as `file`: false when `file` exists. */
function createComplete(file: string, text: string, token: string): boolean {
  const temp = `${file}.${token}.tmp`;
  try {
    writeFileSync(temp, text, { flag: 'wx' });
  } catch (err) {
    throw cannotLock(temp, err);
  }
  try {
    linkSync(temp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw cannotLock(file, err);
  } finally {
    unlinkSync(temp);
  }
}

/**
 * Removes the stale lock `stale` while holding the takeover file, so that no other opener
 * removes a lock meanwhile. The lock is read again under it: another opener may have replaced
 * the stale lock by its own since, and that one stays. Creating ours is left to take(), where
 * the link decides between openers that both find the directory free.
 */
function removeStale(lock: Held, stale: Holder): void {
  const mutex = join(lock.dir, TAKEOVER_FILE);
  const text = JSON.stringify(ownHolder(lock.token));
  for (let wait = 0; !createComplete(mutex, text, `${lock.token}-takeover`); wait++) {
    const other = readHolder(mutex);
    if (other === 'gone') continue;
    // The takeover file lives for a few calls: one whose writer stopped needs a person.
    if (other === 'unreadable' || !isAlive(other)) throw lockedError(lock.dir, mutex, other, 'interrupted');
    if (wait >= 100) throw lockedError(lock.dir, lock.file, other);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  }
  try {
    const now = readHolder(lock.file);
    if (now !== 'gone' && now !== 'unreadable' && now.token === stale.token) unlinkSync(lock.file);
  } finally {
    unlinkSync(mutex);
  }
}

function readHolder(file: string): Holder | 'gone' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw cannotLock(file, err);
  }
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (typeof value.pid === 'number' && typeof value.hostname === 'string' && typeof value.token === 'string') {
      return value as Holder;
    }
  } catch {
    // Not a lock this library wrote: it cannot name its holder.
  }
  return 'unreadable';
}

/**
 * Whether the process a lock names may still run. One on another machine cannot be checked, so
 * it is taken to run. On Linux a pid that runs now but started at another time (or before the
 * last boot) is another process, and a zombie has exited.
 */
function isAlive(holder: Holder): boolean {
  if (holder.hostname !== hostname()) return true;
  const me = ownHolder('');
  if (holder.bootId !== undefined && me.bootId !== undefined && holder.bootId !== me.bootId) return false;
  if (holder.pid === process.pid) {
    // This process, or an earlier one given the same pid: the start time tells them apart.
    return holder.startTime === undefined || holder.startTime === me.startTime;
  }
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = procStat(holder.pid);
  if (stat === undefined) return true;
  if (stat.state === 'Z') return false;
  return holder.startTime === undefined || holder.startTime === stat.startTime;
}

/** Linux: a process's state and start time, from /proc/<pid>/stat. */
function procStat(pid: number | 'self'): { state: string; startTime: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name in parentheses: field 3 (state) onwards; field 22 is the start time.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, startTime: fields[19]! };
  } catch {
    return undefined;
  }
}

let bootId: string | undefined | null = null;

function ownHolder(token: string): Holder {
  if (bootId === null) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      bootId = undefined;
    }
  }
  const startTime = procStat('self')?.startTime;
  return {
    pid: process.pid,
    hostname: hostname(),
    ...(bootId === undefined || startTime === undefined ? {} : { bootId, startTime }),
    token,
    since: new Date().toISOString(),
  };
}

/** Removes the lock file if it is still ours. */
function removeIfMine(lock: Held): void {
  try {
    const found = readHolder(lock.file);
    if (found !== 'gone' && found !== 'unreadable' && found.token === lock.token) unlinkSync(lock.file);
  } catch {
    // Gone already, or unreadable: a later opener judges it by its holder.
  }
}

let hooked = false;

/** A process that exits without closing its queues leaves no lock behind. */
function releaseAtExit(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const lock of held.values()) removeIfMine(lock);
    held.clear();
  });
}

function lockedError(
  dir: string,
  file: string,
  holder: Holder | 'unreadable',
  interrupted?: 'interrupted',
): DataDirLockedError {
  const who = holder === 'unreadable' ? { pid: 0, hostname: '' } : holder;
  const fields = { dataDir: dir, lockFile: file, pid: who.pid, hostname: who.hostname };
  const lead = `The PGlite data directory ${dir}`;
  const retry = `if no process has the directory open, delete ${file} and open it again`;
  if (holder === 'unreadable') {
    return new DataDirLockedError(`${lead} has a lock file queuedev did not write (${file}): ${retry}`, fields);
  }
  if (interrupted) {
    return new DataDirLockedError(
      `${lead} was being taken over by process ${who.pid}, which stopped before it finished: ${retry}`,
      fields,
    );
  }
  const here = who.hostname === hostname();
  if (here && who.pid === process.pid) {
    return new DataDirLockedError(
      `${lead} is already open in this process (pid ${who.pid}), by another queue or PGlite instance: two instances on one directory lose data. Share one queue, or create one PGlite instance and pass it as \`pglite\` to each queue and to migrate()`,
      fields,
    );
  }
  const where = here ? '' : ` on host ${who.hostname} (this machine cannot tell whether it still runs)`;
  return new DataDirLockedError(
    `${lead} is in use by process ${who.pid}${where}, since ${holder.since}: two processes on one data directory lose data. Stop that process (or close its queue) first, or give this one its own dataDir; if it has stopped, delete ${file}`,
    fields,
  );
}

function cannotLock(file: string, err: unknown): ConfigError {
  const e = err as NodeJS.ErrnoException;
  return new ConfigError(
    `Cannot lock the PGlite data directory: writing ${file} failed (${e.code ?? e.message}); give a data directory this process can write`,
    { cause: err },
  );
}
