/**
 * Event history (SPEC §2.8, §6.1).
 */
import type { SchemaNames } from './names.js';

/** $1 job id. Oldest first. */
export function jobEventsSql(t: SchemaNames): string {
  return `SELECT id, job_id, event_type, created_at, metadata FROM ${t.events} WHERE job_id = $1 ORDER BY id`;
}

/** Deletes up to $2 events created before $1; returns how many. */
export function cleanupEventsSql(t: SchemaNames): string {
  return `
WITH gone AS (
  DELETE FROM ${t.events}
  WHERE id IN (SELECT id FROM ${t.events} WHERE created_at < $1 LIMIT $2)
  RETURNING 1
)
SELECT count(*)::int AS n FROM gone`;
}
