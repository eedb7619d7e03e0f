/**
 * PGlite (`@electric-sql/pglite`, PostgreSQL compiled to WebAssembly) as a target of the
 * PostgreSQL backend: the same SQL and migrations, in the process, without a server. One
 * PGlite instance is one session, so everything runs on it: statements one at a time (PGlite
 * queues them), transactions through its own transaction(), wake-ups through its listen().
 *
 * Rows come back as pg returns them, so rows.ts and timestamps.ts see the same values on both
 * targets: int8 (and int8[]) as strings, timestamptz read by timestamps.ts. The parsers are
 * passed with every statement rather than set on the instance, so a caller's own instance,
 * with whatever parsers it was created with, gives the queue the same rows.
 */
import type { ResolvedPostgresConfig } from '../../config.js';
import { loadDriver } from '../../load-driver.js';
import { StoreFact } from '../../store-facts.js';
import type { PGliteInstance, PGliteQueryOptions, PGliteTransaction, Queryable } from '../../types.js';
import type { Connection, QueryResult, Transaction } from './connection.js';
import type { Driver } from './driver.js';
import type { WakeSource } from './listener.js';
import { attachLock, lockDataDir, lockInstanceDataDir, releaser, type ReleaseLock } from './pglite-lock.js';
import { TIMESTAMPTZ_OID, timestamptzParser } from './timestamps.js';

const INT8_OID = 20;
const INT8_ARRAY_OID = 1016;

/** pg's text for int8: the value as the server wrote it, so ids past 2^53 keep every digit. */
const asText = (value: string): string => value;

/** An int8[] literal (`{1,2,NULL}`): its elements are never quoted. */
function int8Array(value: string): (string | null)[] {
  if (value === '{}') return [];
  return value
    .slice(1, -1)
    .split(',')
    .map((element) => (element === 'NULL' ? null : element));
}

/** `YYYY-MM-DD HH:MM:SS[.f…]±HH[:MM[:SS]][ BC]`, PostgreSQL's ISO output of any year. */
const TIMESTAMPTZ_TEXT =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(\.\d+)?([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?( BC)?$/;

/**
 * The timestamptz values timestamps.ts leaves to the driver (years before 100 or past 9999, BC,
 * infinity), read as pg's parser (postgres-date) reads them, where JavaScript's own Date parsing
 * would take year 0001 for 2001.
 */
function rareTimestamptz(value: string): unknown {
  if (value === 'infinity') return Infinity;
  if (value === '-infinity') return -Infinity;
  const m = TIMESTAMPTZ_TEXT.exec(value);
  if (!m) return new Date(value);
  const [, y, mo, d, h, mi, sec, fraction, sign, oh, om, os, bc] = m;
  let year = Number(y);
  if (bc) year = 1 - year;
  const date = new Date(Date.UTC(2000, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec)));
  date.setUTCFullYear(year);
  const offsetMs = (Number(oh) * 3600 + Number(om ?? 0) * 60 + Number(os ?? 0)) * 1000;
  const ms = fraction ? Math.floor(1000 * Number(fraction)) : 0;
  return new Date(date.getTime() + ms + (sign === '+' ? -offsetMs : offsetMs));
}

/** @internal The parsers that make PGlite's rows pg's. */
export const PG_COMPATIBLE: PGliteQueryOptions = {
  parsers: {
    [INT8_OID]: asText,
    [INT8_ARRAY_OID]: int8Array,
    [TIMESTAMPTZ_OID]: timestamptzParser(rareTimestamptz),
  },
};

/**
 * @internal Runs statements on a PGlite instance or transaction as a pg client does: text
 * without values through the simple protocol (several statements, as a migration file holds,
 * run as one batch; the last one's rows are returned), text with values as one prepared
 * statement.
 */
export async function queryPGlite<R>(db: PGliteTransaction, text: string, values?: unknown[]): Promise<QueryResult<R>> {
  if (values === undefined || values.length === 0) {
    const results = await db.exec(text, PG_COMPATIBLE);
    const last = results[results.length - 1];
    return { rows: (last?.rows ?? []) as R[], rowCount: last?.rowCount ?? last?.affectedRows ?? null };
  }
  const result = await db.query(text, values, PG_COMPATIBLE);
  return { rows: result.rows as R[], rowCount: result.rowCount ?? result.affectedRows ?? null };
}

/** A Queryable whose results always carry `rowCount`, as pg's do. */
export interface PGliteQueryable extends Queryable {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows as pg types them
  query<R = any>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}

/** @internal A PGlite instance or transaction as the Queryable the backend and migrate() use. */
export function pgliteQueryable(db: PGliteTransaction): PGliteQueryable {
  return { query: <R>(text: string, values?: unknown[]) => queryPGlite<R>(db, text, values) };
}

const turns = new WeakMap<PGliteInstance, Promise<unknown>>();

/** @internal Runs `fn` once every earlier inTurn() call on `instance` has settled. */
export function inTurn<T>(instance: PGliteInstance, fn: () => Promise<T>): Promise<T> {
  const run = (turns.get(instance) ?? Promise.resolve()).then(fn, fn);
  turns.set(
    instance,
    run.catch(() => undefined),
  );
  return run;
}

/** A Connection over one PGlite instance. `prepared` changes nothing: PGlite plans each statement. */
export function pgliteConnection(instance: PGliteInstance): Connection {
  return {
    query: <R>(text: string, values?: unknown[]) => queryPGlite<R>(instance, text, values),
    transaction: <T>(fn: (tx: Transaction) => Promise<T>, setup?: string) =>
      instance.transaction(async (tx) => {
        const queryable = pgliteQueryable(tx);
        if (setup !== undefined) await queryable.query(setup);
        return fn(queryable);
      }),
  };
}

/** Wake-ups through the instance's own listen(): notifications of the same session. */
function pgliteWakeSource(instance: PGliteInstance): WakeSource {
  return async ({ quotedChannel, notify }) => {
    const unlisten = await instance.listen(quotedChannel, notify);
    return { close: () => unlisten().catch(() => undefined) };
  };
}

/**
 * A PGlite instance the library creates, in memory or in `dataDir` (kept across restarts), and
 * whether it started. A directory on disk is locked first (pglite-lock.ts): one held by another
 * process, or by another instance of this one, throws DataDirLockedError and opens nothing. A
 * start that fails (an unwritable dataDir) rejects every statement with its error.
 */
function createInstance(dataDir: string | undefined): {
  instance: PGliteInstance;
  started: Promise<boolean>;
  release: ReleaseLock;
} {
  const { PGlite } = loadDriver('@electric-sql/pglite');
  const lock = lockDataDir(dataDir);
  let instance: InstanceType<typeof PGlite>;
  try {
    instance = new PGlite(dataDir);
  } catch (err) {
    if (lock) releaser(lock)();
    throw err;
  }
  if (lock) attachLock(instance, lock);
  const started = instance.waitReady.then(
    () => true,
    () => false,
  );
  return { instance, started, release: lock ? releaser(lock) : () => undefined };
}

/**
 * @internal The queue's PGlite: the caller's instance, or one it creates and closes. Either way
 * the queue holds the lock of its data directory until close().
 */
export function openPGliteDriver(option: NonNullable<ResolvedPostgresConfig['pglite']>): Driver {
  const owned = 'options' in option ? createInstance(option.options.dataDir) : undefined;
  const instance = owned?.instance ?? (option as { instance: PGliteInstance }).instance;
  const release = owned?.release ?? lockInstanceDataDir(instance);
  return {
    conn: pgliteConnection(instance),
    db: pgliteQueryable(instance),
    migrateTarget: { pglite: instance },
    wakeSource: () => pgliteWakeSource(instance),
    getPool() {
      throw new StoreFact({ kind: 'unsupported-on-backend', operation: 'getPool', target: 'pglite' });
    },
    singleSession: true,
    secrets: [],
    async close() {
      try {
        if (owned && (await owned.started) && !instance.closed) await instance.close();
      } finally {
        release();
      }
    },
  };
}
