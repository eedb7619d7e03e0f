/**
 * Event history (SPEC §2.8, §6.1).
 */
import type { SchemaNames } from './names.js';

/**
 * The metadata an `added` event stores for a job of `job_type`, `tags` and `idempotency_key`
 * (columns of the row `x.`, or unqualified with ''): none when the job has neither tags nor a
 * key, the common case; the read restores it from the job's type (which no edit changes).
 */
export const addedMetadata = (x: string) =>
  `CASE WHEN ${x}tags <> '{}' OR ${x}idempotency_key IS NOT NULL
    THEN jsonb_build_object('jobType', ${x}job_type, 'tags', to_jsonb(${x}tags), 'idempotencyKey', ${x}idempotency_key) END`;

/** $1 job id. Oldest first; an `added` event stored without metadata gets it back (addedMetadata). */
export function jobEventsSql(t: SchemaNames): string {
  return `
SELECT e.id, e.job_id, e.event_type, e.created_at,
  CASE WHEN e.metadata IS NULL AND e.event_type = 'added'
    THEN jsonb_build_object('jobType', (SELECT j.job_type FROM ${t.jobs} j WHERE j.id = e.job_id),
      'tags', '[]'::jsonb, 'idempotencyKey', NULL)
    ELSE e.metadata END AS metadata
FROM ${t.events} e WHERE e.job_id = $1 ORDER BY e.id`;
}

/**
 * Deletes up to $2 events created before $1; returns how many. The old events are found through
 * the created_at index and deleted by their row address (a TID scan): no index on id alone
 * exists (the primary key is (job_id, id)), and a join on the key lets the planner hash all events.
 */
export function cleanupEventsSql(t: SchemaNames): string {
  return `
WITH gone AS (
  DELETE FROM ${t.events}
  WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${t.events} WHERE created_at < $1 ORDER BY created_at LIMIT $2))
  RETURNING 1
)
SELECT count(*)::int AS n FROM gone`;
}
