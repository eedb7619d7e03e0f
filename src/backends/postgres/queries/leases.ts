/**
 * The processor's lease check (DETAILS "Retries, failures, reclaim"): which of the jobs its
 * handlers run are still processing and locked by it. A job missing from the answer was
 * reclaimed (or otherwise taken away), and its run is given up.
 */
import type { SchemaNames } from './names.js';

/**
 * $1 job ids (bigint[]), $2 worker id. Returns the ids still held. The jobs are read through the
 * primary key: `IS NOT DISTINCT FROM` keeps the planner off the indexes of processing jobs,
 * which hold an entry for every claim since the last VACUUM (HELD_INPUT_ROWS in processing.ts).
 */
export function heldJobIdsSql(t: SchemaNames): string {
  return `SELECT id FROM ${t.jobs}
WHERE id = ANY($1::bigint[]) AND status IS NOT DISTINCT FROM 'processing' AND locked_by = $2`;
}
