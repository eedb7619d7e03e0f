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

/** The metadata of an `added` event stored without any, for a job of type `jobType` (an expression). */
const defaultAddedMetadata = (jobType: string) =>
  `jsonb_build_object('jobType', ${jobType}, 'tags', '[]'::jsonb, 'idempotencyKey', NULL)`;

/**
 * $1 job id. Oldest first; an `added` event stored without metadata gets it back (addedMetadata),
 * and one kept in the job's row (migration 013: `added_event_id`, at the job's `created_at`) is
 * read from there, in its place among the others by its id, unless the cleanup removed it: the
 * job is below its floor and was added before its cutoff (migration 014, cleanupAddedEventsSql).
 */
export function jobEventsSql(t: SchemaNames): string {
  return `
SELECT e.id, e.job_id, e.event_type, e.created_at,
  CASE WHEN e.metadata IS NULL AND e.event_type = 'added'
    THEN ${defaultAddedMetadata(`(SELECT j.job_type FROM ${t.jobs} j WHERE j.id = e.job_id)`)}
    ELSE e.metadata END AS metadata
FROM ${t.events} e WHERE e.job_id = $1
UNION ALL
SELECT j.added_event_id, j.id, 'added', j.created_at, ${defaultAddedMetadata('j.job_type')}
FROM ${t.jobs} j, ${t.addedEventsFloor} f
WHERE j.id = $1 AND j.added_event_id IS NOT NULL AND NOT (j.id < f.below_job_id AND j.created_at < f.added_before)
ORDER BY 1`;
}

/**
 * One batch of the cleanup of the `added` events kept in job rows (migrations 013, 014): the
 * function job_queue_added_events_cleanup walks up to $2 jobs upward from the floor, in the
 * order of the primary key, and raises the floor to the first job added at or after $1. Ids
 * are drawn as jobs are added, so a job below that first recent one was added before it, and a
 * job the walk cannot see yet (its add not committed) was added before the jobs that follow it.
 * No job's row is locked or written. `n`: the events removed; `more`: the walk stopped at $2.
 */
export function cleanupAddedEventsSql(t: SchemaNames): string {
  return `SELECT passed AS n, more FROM ${t.addedEventsCleanup}($1, $2)`;
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
