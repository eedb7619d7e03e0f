/**
 * What the operations that end jobs for good (cancel, final failure, reclaim) share: cancelling
 * dependents transitively, and routing to a dead-letter job (CTEs spliced into the statement
 * that ends the job). Also the error history entry every recorded failure appends.
 */
import type { SchemaNames } from './names.js';

/**
 * An error history entry { message, timestamp, stack? } from three SQL expressions; a NULL
 * stack leaves the key out, as the Redis backend does.
 */
export function errorEntry(message: string, timestamp: string, stack = 'NULL'): string {
  return `jsonb_strip_nulls(jsonb_build_object('message', ${message}, 'timestamp', ${timestamp}, 'stack', ${stack}))`;
}

/** Ids of ended jobs per scan of the dependents' GIN index: also migration 019's hint. */
const DEPENDENTS_SLICE = 100;

/**
 * One level of the cascade: cancels the pending or waiting jobs that can no longer run because
 * a job of $1 (ids) ended for good: jobs listing it in `depends_on_job_ids`, and jobs whose
 * `depends_on_tags` it carries (tag barrier). Writes their `cancelled` events `{ cascadeFrom }`.
 * $2 now. Rows: id, cascade_from.
 *
 * The caller runs it in the transaction that ended the jobs, as a separate statement, level by
 * level until no row comes back. A separate statement matters: its snapshot is taken after the
 * ended jobs were locked, so it sees a dependent whose insert committed while we waited for that
 * lock; an insert arriving later waits for our commit and is then refused (addJobsSql).
 *
 * Its cost is linear in the ended jobs and their dependents, whatever the table's statistics:
 * there is no join of ended jobs with candidate dependents for the planner to turn into a
 * nested loop (right after a bulk insert, before ANALYZE, that loop compared 100,000 cancelled
 * jobs with every pending one). Dependents by id come from the GIN index on depends_on_job_ids,
 * one scan per slice of at most DEPENDENTS_SLICE ids of $1 (a GIN scan compares each id of its
 * query with every one before it, so one scan with the whole array cost the square of its size;
 * `OFFSET 0` keeps the slice's scan inside the loop over slices, and the status out of it, so no
 * plan reads every pending job per slice), each matched against $1 as a hashed `= ANY`. Tag barriers compare each candidate with the
 * distinct tag sets of the ended jobs, grouped once. An ended job is never pending or waiting in
 * this snapshot, so a dependent is never its own parent.
 */
export function cascadeLevelSql(t: SchemaNames): string {
  return `
WITH tag_sets AS MATERIALIZED (
  SELECT p.tags, min(p.id) AS first_id FROM ${t.jobs} p
  WHERE p.id = ANY($1::bigint[]) AND p.tags <> '{}'
  GROUP BY p.tags
),
by_job AS (
  SELECT d.id, min(e.id) AS cascade_from
  FROM generate_series(1, cardinality($1::bigint[]), ${DEPENDENTS_SLICE}) AS slice(first)
  CROSS JOIN LATERAL (
    SELECT d.id, d.status, d.depends_on_job_ids FROM ${t.jobs} d
    WHERE d.depends_on_job_ids IS NOT NULL
      AND d.depends_on_job_ids && ($1::bigint[])[slice.first:slice.first + ${DEPENDENTS_SLICE - 1}]
    OFFSET 0
  ) d
  CROSS JOIN LATERAL unnest(d.depends_on_job_ids) AS e(id)
  WHERE d.status IN ('pending', 'waiting') AND e.id = ANY($1::bigint[])
  GROUP BY d.id
),
by_tags AS (
  SELECT d.id, (SELECT min(s.first_id) FROM tag_sets s WHERE s.tags @> d.depends_on_tags) AS cascade_from
  FROM ${t.jobs} d
  WHERE d.depends_on_tags IS NOT NULL AND d.status IN ('pending', 'waiting')
    AND d.depends_on_tags <@ (SELECT array_agg(DISTINCT tag) FROM tag_sets, unnest(tags) AS tag)
),
picked AS (
  SELECT id, min(cascade_from) AS cascade_from
  FROM (SELECT * FROM by_job UNION ALL SELECT * FROM by_tags WHERE cascade_from IS NOT NULL) c
  GROUP BY id
),
cascaded AS (
  UPDATE ${t.jobs} j
  SET status = 'cancelled', last_cancelled_at = $2, updated_at = $2
  FROM picked p
  WHERE j.id = p.id AND j.status IN ('pending', 'waiting')
  RETURNING j.id, p.cascade_from
),
cascade_events AS (
  INSERT INTO ${t.events} (job_id, event_type, created_at, metadata)
  SELECT id, 'cancelled', $2, jsonb_build_object('cascadeFrom', cascade_from) FROM cascaded ORDER BY id
)
SELECT id, cascade_from FROM cascaded ORDER BY id`;
}

/**
 * Whether cascadeLevelSql would cancel anything for the ended jobs $1 (ids): a superset of its
 * predicates, answered by a function of migration 017 planned once per session. Row: live.
 * Asked as a statement of its own, after the jobs were ended, for the snapshot reason above.
 */
export function cascadeHintSql(t: SchemaNames): string {
  return `SELECT ${t.hasLiveDependents}($1::bigint[]) AS live`;
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
