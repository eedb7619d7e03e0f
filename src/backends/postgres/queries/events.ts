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

/** A new id of job_events' sequence: the id of an event a job keeps in its row (migrations 013, 018). */
export const nextEventId = (t: SchemaNames) => `nextval('${t.eventIdSeq}'::regclass)`;

/**
 * The kept `processing` event of the job row `x` (migration 018), as the columns `kept_event_id`
 * and `kept_event_at`: read from a locked row, before a statement that replaces or clears it.
 */
export const keptProcessingEvent = (x: string) =>
  `${x}.processing_event_id AS kept_event_id, ${x}.processing_event_at AS kept_event_at`;

/** Clears a job's kept `processing` event: SET items. */
export const CLEAR_KEPT_PROCESSING = 'processing_event_id = NULL, processing_event_at = NULL';

/**
 * The INSERT that writes the kept `processing` events of the rows `source` yields (with
 * keptProcessingEvent's columns and the job's `id`, as `s`, those meeting `condition` when given)
 * out as rows of job_events, with their ids and times: for a job that leaves processing other
 * than completed, so that its next attempt can keep its own event.
 */
export const writeOutKeptProcessing = (t: SchemaNames, source: string, condition?: string) => `
  INSERT INTO ${t.events} (id, job_id, event_type, created_at, metadata)
  SELECT s.kept_event_id, s.id, 'processing', s.kept_event_at, NULL FROM ${source} s
  WHERE s.kept_event_id IS NOT NULL${condition === undefined ? '' : ` AND ${condition}`}`;

/**
 * Whether the events kept in the row `j` are removed: the job is finished and below the floor
 * `f` of job_queue_run_events_floor (migration 018, cleanupRunEventsSql).
 */
export const belowRunEventsFloor = (j: string, f: string) =>
  `(${j}.status IN ('completed', 'cancelled', 'failed')
    AND (${j}.updated_at, ${j}.id) < (${f}.below_finished_at, ${f}.below_job_id))`;

/**
 * $1 job id. Oldest first; an `added` event stored without metadata gets it back (addedMetadata).
 * The events a job keeps in its row are read from there, each in its place among the others by
 * its id: its `added` event (migration 013: `added_event_id`, at the job's `created_at`) unless
 * the cleanup removed it (the job is below its floor and was added before its cutoff, migration
 * 014, cleanupAddedEventsSql); the `processing` event of its current or last attempt
 * (`processing_event_id` at `processing_event_at`) and its `completed` event (`completed_event_id`
 * at `completed_at`), unless the job is finished and below the floor of migration 018
 * (cleanupRunEventsSql).
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
UNION ALL
SELECT k.id, j.id, k.event_type, k.created_at, NULL
FROM ${t.jobs} j, ${t.runEventsFloor} f,
  LATERAL (VALUES (j.processing_event_id, 'processing', j.processing_event_at),
                  (j.completed_event_id, 'completed', j.completed_at)) AS k(id, event_type, created_at)
WHERE j.id = $1 AND k.id IS NOT NULL AND NOT ${belowRunEventsFloor('j', 'f')}
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
 * One batch of the cleanup of the `processing` and `completed` events kept in the rows of finished
 * jobs (migration 018): the function job_queue_run_events_cleanup walks up to $2 finished jobs
 * upward from the floor, in the order of job_queue_finished_idx (finish time, then id), stopping
 * at the first one finished at or after $1, and raises the floor past the last one walked. No
 * job's row is locked or written. `n`: the events removed; `more`: the walk stopped at $2.
 */
export function cleanupRunEventsSql(t: SchemaNames): string {
  return `SELECT passed AS n, more FROM ${t.runEventsCleanup}($1, $2)`;
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
