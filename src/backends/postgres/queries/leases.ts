/**
 * The processor's leases (DETAILS "Retries, failures, reclaim"): the check of which jobs its
 * handlers run are still processing and locked by it (a job missing from the answer was
 * reclaimed or otherwise taken away, and its run is given up), and the renewal and hand-back of
 * the jobs it claimed ahead and has not started.
 */
import { CLEAR_KEPT_PROCESSING, keptProcessingEvent, writeOutKeptProcessing } from './events.js';
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

/**
 * The lease of jobs claimed ahead and not started (the processor's claim-ahead buffer): $1 job
 * ids (bigint[]), $2 worker id, $3 now. Those still processing and locked by the worker get
 * locked_at = now, so the reclaim counts from now; no event (a lease is not a change of the
 * job). Returns the ids renewed.
 */
export function renewLeasesSql(t: SchemaNames): string {
  return `UPDATE ${t.jobs} SET locked_at = $3
WHERE id = ANY($1::bigint[]) AND status IS NOT DISTINCT FROM 'processing' AND locked_by = $2
RETURNING id`;
}

/**
 * Hands back jobs claimed ahead that never started: $1 job ids (bigint[]), $2 worker id, $3 now,
 * $4 the wake-up channel. Those still processing and locked by the worker go back to pending
 * with pending_reason 'released' (their next claim counts no attempt: the claim that handed
 * them back counted one already), the lock cleared, the kept `processing` event written out and
 * a `released` event each, in one statement; a job reclaimed meanwhile (and perhaps claimed by
 * another worker) is not touched. Rows: the ids handed back.
 */
export function releaseJobsSql(t: SchemaNames): string {
  return `
WITH held AS MATERIALIZED (
  SELECT j.id, ${keptProcessingEvent('j')}
  FROM ${t.jobs} j
  WHERE j.id = ANY($1::bigint[]) AND j.status IS NOT DISTINCT FROM 'processing' AND j.locked_by = $2
  ORDER BY j.id
  FOR UPDATE
),
released AS (
  UPDATE ${t.jobs} j SET status = 'pending', pending_reason = 'released', locked_at = NULL, locked_by = NULL,
    updated_at = $3, ${CLEAR_KEPT_PROCESSING}
  FROM held s
  WHERE j.id = s.id
  RETURNING j.id
),
kept_events AS (
  -- The claim's processing event, kept in the row (migration 018), before the released event.
  ${writeOutKeptProcessing(t, 'held')}
),
released_events AS (
  INSERT INTO ${t.events} (job_id, event_type, created_at, metadata)
  SELECT id, 'released', $3, NULL FROM held ORDER BY id
),
notified AS (
  SELECT pg_notify($4, '') FROM (SELECT 1 FROM released LIMIT 1) s
)
SELECT r.id FROM released r, (SELECT count(*) FROM notified) n`;
}
