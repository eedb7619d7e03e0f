/**
 * Event history (SPEC §2.8, §6.1).
 */
import type { SchemaNames } from './names.js';

/** $1 job id. Oldest first. */
export function jobEventsSql(t: SchemaNames): string {
  return `SELECT id, job_id, event_type, created_at, metadata FROM ${t.events} WHERE job_id = $1 ORDER BY id`;
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
