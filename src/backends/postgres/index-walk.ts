/**
 * Statements whose work must follow their batch or limit whatever the table statistics say.
 * Right after a burst of writes (before ANALYZE) the planner takes a status or a job type for rare
 * and reads every match through a bitmap, then sorts them; it may also walk the primary key past
 * every newer job of another status. Migration 007 pins the cleanup batch to its ordered walk
 * inside a function; statements built per call (a filter's conditions) get the same settings for
 * one transaction instead.
 */
import type { Queryable } from '../../types.js';
import type { PostgresContext } from './context.js';

/**
 * No sequential scan, bitmap scan or sort: what is left reads indexes in order, so a statement
 * whose ORDER BY one index matches, with a LIMIT, reads that index and stops at the limit, and a
 * lookup by ids probes an index once per id.
 */
export const INDEX_READS =
  'SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off';

/** Runs `run` in a transaction whose statements are planned with INDEX_READS. */
export function withIndexReads<T>(ctx: PostgresContext, run: (tx: Queryable) => Promise<T>): Promise<T> {
  return ctx.conn.transaction(run, INDEX_READS);
}

/**
 * No sequential scan: a lookup by a batch of ids probes the primary key whatever the statistics
 * (before ANALYZE, the planner took reading the whole table for cheaper than 500 probes). Bitmap
 * scans stay on: the GIN indexes of a cancel's cascade are read no other way. No JIT: the cost a
 * disabled scan adds (the retry's one-row floor table has no index) made every batch compile
 * its statement, for over a second.
 */
export const ID_LOOKUPS = 'SET LOCAL enable_seqscan = off; SET LOCAL jit = off';
