/**
 * SQL fragments shared by the operations that end jobs for good (cancel, final failure,
 * reclaim): cancelling dependents transitively and routing to a dead-letter job. Each is a list
 * of CTEs spliced into one `WITH RECURSIVE` statement, so the whole operation stays atomic.
 */
import type { SchemaNames } from './names.js';

/**
 * Cancels, transitively, the pending or waiting jobs that can no longer run because a job of
 * `roots` (a CTE with columns `id`, `tags`) ended for good: jobs listing a root in
 * `depends_on_job_ids`, and jobs whose `depends_on_tags` a root carries (tag barrier).
 * Defines `cascaded(id, cascade_from)` and writes their `cancelled` events `{ cascadeFrom }`.
 * `now` is the SQL text of the time parameter (e.g. `$2::timestamptz`).
 */
export function cascadeCtes(t: SchemaNames, roots: string, now: string): string {
  // The statement's snapshot still shows the roots as active, so they are excluded by id.
  const dependents = (parent: string) => `
    JOIN ${t.jobs} d ON d.status IN ('pending', 'waiting') AND d.id <> ${parent}.id
      AND (d.depends_on_job_ids @> ARRAY[${parent}.id]::bigint[]
           OR (d.depends_on_tags IS NOT NULL AND d.depends_on_tags <@ ${parent}.tags))
    WHERE d.id NOT IN (SELECT id FROM ${roots})`;
  return `
cascade_chain(id, tags, cascade_from) AS (
  SELECT d.id, d.tags, r.id FROM ${roots} r ${dependents('r')}
  UNION
  SELECT d.id, d.tags, c.id FROM cascade_chain c ${dependents('c')}
),
cascade_picked AS (
  SELECT DISTINCT ON (id) id, cascade_from FROM cascade_chain ORDER BY id, cascade_from
),
cascaded AS (
  UPDATE ${t.jobs} j
  SET status = 'cancelled', last_cancelled_at = ${now}, updated_at = ${now}
  FROM cascade_picked p
  WHERE j.id = p.id AND j.status IN ('pending', 'waiting')
  RETURNING j.id, p.cascade_from
),
cascade_events AS (
  INSERT INTO ${t.events} (job_id, event_type, created_at, metadata)
  SELECT id, 'cancelled', ${now}, jsonb_build_object('cascadeFrom', cascade_from) FROM cascaded ORDER BY id
)`;
}

/**
 * The dead-letter envelope (SPEC §2.5) of source row `s`, as a jsonb expression.
 * `message`, `reason` and `failedAt` are SQL expressions.
 */
export function deadLetterEnvelope(s: string, message: string, reason: string, failedAt: string): string {
  return `jsonb_build_object(
    'originalJob', jsonb_build_object('id', ${s}.id, 'jobType', ${s}.job_type, 'attempts', ${s}.attempts, 'maxAttempts', ${s}.max_attempts),
    'originalPayload', ${s}.payload,
    'failure', jsonb_build_object('message', ${message}, 'reason', ${reason}, 'failedAt', ${failedAt}))`;
}

/**
 * Inserts the dead-letter jobs of `dl` (a CTE with `id`, `job_type`, `payload`; ids already
 * drawn from the sequence) with default options, and their `added` events.
 */
export function deadLetterInsertCtes(t: SchemaNames, dl: string, now: string): string {
  return `
dead_letters AS (
  INSERT INTO ${t.jobs} (id, job_type, payload, status, max_attempts, priority, run_at, created_at, updated_at)
  SELECT id, job_type, payload, 'pending', 3, 0, ${now}, ${now}, ${now} FROM ${dl} ORDER BY id
  RETURNING id, job_type
),
dead_letter_events AS (
  INSERT INTO ${t.events} (job_id, event_type, created_at, metadata)
  SELECT id, 'added', ${now}, jsonb_build_object('jobType', job_type, 'tags', '[]'::jsonb, 'idempotencyKey', NULL)
  FROM dead_letters ORDER BY id
)`;
}
