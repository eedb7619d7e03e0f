/**
 * Finding jobs: why pending jobs are held, for the dashboard's run-at column.
 */
import type { SchemaNames } from './names.js';

/**
 * Why each of the jobs $1 (bigint[]) is held at $2 (now), in the order of $1. Rows: reason:
 * NULL for a missing or not pending job; 'scheduled' (run_at after now); 'dependencies' (a
 * depends_on_job_ids job exists and is not completed, a cleaned-up one counting as completed,
 * or another active job carries every depends_on_tags tag: the claim's own barrier check);
 * 'group' (parked by a claim that found its group full, migration 006); else 'due'. The work
 * is that of the jobs given: primary key lookups, and the GIN index for a barrier.
 */
export function holdReasonsSql(t: SchemaNames): string {
  return `SELECT CASE
  WHEN j.id IS NULL OR j.status <> 'pending' THEN NULL
  WHEN j.run_at > $2::timestamptz THEN 'scheduled'
  WHEN cardinality(j.depends_on_job_ids) > 0 AND EXISTS (
    SELECT 1 FROM ${t.jobs} p WHERE p.id = ANY(j.depends_on_job_ids) AND p.status <> 'completed'
  ) THEN 'dependencies'
  WHEN cardinality(j.depends_on_tags) > 0 AND NOT ${t.tagBarrierClear}(j.depends_on_tags, j.id) THEN 'dependencies'
  WHEN j.parked AND j.parked_reason = 'group_full' THEN 'group'
  ELSE 'due'
END AS reason
FROM unnest($1::bigint[]) WITH ORDINALITY AS given(id, n)
LEFT JOIN ${t.jobs} j ON j.id = given.id
ORDER BY given.n`;
}
