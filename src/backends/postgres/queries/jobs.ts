/**
 * Adding and reading jobs (SPEC §4.1, §4.2).
 */
import { jobColumns } from '../rows.js';
import { addedMetadata, nextEventId } from './events.js';
import type { SchemaNames } from './names.js';

/**
 * Values a job's input row leaves out when it holds them: the add statements put them back.
 * A plain job (type and payload, every other option at its default) then travels as a few bytes,
 * and PostgreSQL parses no key for the options it does not set.
 */
export const INPUT_DEFAULTS = { maxAttempts: 3, priority: 0 } as const;

/**
 * Which add statement: `traced` ones also write the producer's trace context (migration 011).
 * Jobs added without one (no trace recorded, and every cron job) use the statements that leave
 * the column out, so an add costs nothing more when telemetry records nothing.
 */
export interface AddStatementOptions {
  traced: boolean;
}

/** The columns of a job's input row ($1, a JSON array); an absent key reads as NULL. */
const inputColumns = ({ traced }: AddStatementOptions) => `job_type text, payload jsonb, max_attempts integer,
    priority integer, run_at timestamptz, timeout_ms integer, force_kill_on_timeout boolean, tags text[],
    idempotency_key text, retry_delay double precision, retry_backoff boolean,
    retry_delay_max double precision, dead_letter_job_type text, group_id text, group_tier text,
    depends_on_job_ids bigint[], depends_on_tags text[]${traced ? ', trace_context text' : ''}`;

/** job_queue columns an add writes, in the order of {@link insertValues}, before the id. */
const insertColumns = ({ traced }: AddStatementOptions) => `job_type, payload, max_attempts, priority, run_at,
    timeout_ms, force_kill_on_timeout, tags, idempotency_key, retry_delay, retry_backoff, retry_delay_max,
    dead_letter_job_type, group_id, group_tier, depends_on_tags, created_at, updated_at${traced ? ', trace_context' : ''}`;

/** The values of {@link insertColumns} for input row `x`, its left-out options restored; $2 now. */
const insertValues = (x: string, { traced }: AddStatementOptions) => `${x}.job_type,
    COALESCE(${x}.payload, 'null'::jsonb), COALESCE(${x}.max_attempts, ${INPUT_DEFAULTS.maxAttempts}),
    COALESCE(${x}.priority, ${INPUT_DEFAULTS.priority}), COALESCE(${x}.run_at, $2), ${x}.timeout_ms,
    COALESCE(${x}.force_kill_on_timeout, false), COALESCE(${x}.tags, '{}'), ${x}.idempotency_key,
    ${x}.retry_delay, ${x}.retry_backoff, ${x}.retry_delay_max, ${x}.dead_letter_job_type, ${x}.group_id,
    ${x}.group_tier, ${x}.depends_on_tags, $2, $2${traced ? `, ${x}.trace_context` : ''}`;

/**
 * The `added` event of each row of `inserted` (id, job_type, tags, idempotency_key) at $2. A job
 * without tags or key stores no metadata: the read puts back `{ jobType, tags: [], idempotencyKey:
 * null }` (see jobEventsSql), so the common event skips building a JSON object and is ~60 bytes
 * smaller.
 */
const addedEvents = (t: SchemaNames, where = '') => `added_events AS (
  INSERT INTO ${t.events} (job_id, event_type, created_at, metadata)
  SELECT id, 'added', $2, ${addedMetadata('')}
  FROM inserted ${where}
)`;

/**
 * The `added_event_id` of a job the plain add statements insert (no idempotency key and no
 * prerequisites): a new event id when its tags (`tags`, an expression) are empty, so its `added`
 * event, whose metadata would be the default, is kept in the row (migration 013; read by
 * jobEventsSql, removed by cleanupAddedEventsSql); NULL otherwise, and the event gets a row of
 * job_events as before.
 */
const inRowAddedEvent = (t: SchemaNames, tags: string) =>
  `CASE WHEN cardinality(COALESCE(${tags}, '{}')) = 0 THEN ${nextEventId(t)} END`;

/** The wake-up of both add statements: a single new job's id rides on it, so an idle processor can claim it by id. */
const NOTIFIED = `notified AS (
  SELECT pg_notify($3, CASE WHEN count(*) = 1 THEN max(id)::text ELSE '' END) FROM inserted HAVING count(*) > 0
)`;

/**
 * Adds a batch of jobs none of which has an idempotency key or prerequisite jobs (the common
 * case), in ONE statement: every job is inserted, with nothing to look up first. $1 the jobs
 * (JSON array of input rows), $2 now, $3 the NOTIFY channel.
 *
 * Ids come from the column default as the rows are inserted, in input order, so sorting them
 * gives the input order back. One row: `ids`, the ids in input order joined by commas (one
 * value to send and parse instead of a row per job).
 */
export function addPlainJobsSql(t: SchemaNames, options: AddStatementOptions): string {
  return `
WITH inserted AS (
  INSERT INTO ${t.jobs} (${insertColumns(options)}, added_event_id)
  SELECT ${insertValues('x', options)}, ${inRowAddedEvent(t, 'x.tags')}
  FROM jsonb_to_recordset($1::jsonb) AS x(${inputColumns(options)})
  RETURNING id, job_type, tags, idempotency_key, added_event_id
),
${addedEvents(t, 'WHERE added_event_id IS NULL')},
${NOTIFIED}
SELECT string_agg(id::text, ',' ORDER BY id) AS ids, (SELECT count(*) FROM notified) AS notified FROM inserted`;
}

/**
 * Adds ONE job without idempotency key or prerequisites, its options as parameters: the same
 * row, event and wake-up as {@link addPlainJobsSql} for a batch of one, without the JSON input
 * (no function scan to set up, no document to parse). $1 job_type, $2 payload (JSON text),
 * $3 max_attempts, $4 priority, $5 run_at, $6 timeout_ms, $7 force_kill_on_timeout, $8 tags,
 * $9 retry_delay, $10 retry_backoff, $11 retry_delay_max, $12 dead_letter_job_type,
 * $13 group_id, $14 group_tier, $15 depends_on_tags, $16 now, $17 the NOTIFY channel, and when
 * `traced`, $18 trace_context. Row: id.
 *
 * `tagged`: the statement for a job with tags ($8 not empty), whose `added` event is a row of
 * job_events (its tags may be edited later). Without tags the event is kept in the row, and the
 * statement has no event insert to plan and run at all.
 */
export function addOnePlainJobSql(t: SchemaNames, options: AddStatementOptions & { tagged: boolean }): string {
  const events = options.tagged
    ? `,
added_events AS (
  INSERT INTO ${t.events} (job_id, event_type, created_at, metadata)
  SELECT id, 'added', $16, ${addedMetadata('')} FROM inserted
)`
    : '';
  return `
WITH inserted AS (
  INSERT INTO ${t.jobs} (${insertColumns(options)}, added_event_id)
  VALUES ($1, $2::jsonb, $3, $4, $5, $6, $7, $8, NULL, $9, $10, $11, $12, $13, $14, $15, $16, $16${options.traced ? ', $18' : ''},
    ${options.tagged ? 'NULL' : nextEventId(t)})
  RETURNING id${options.tagged ? ', job_type, tags, idempotency_key' : ''}
)${events}
SELECT id, pg_notify($17, id::text) AS notified FROM inserted`;
}

/**
 * Adds a batch of jobs in ONE statement, whatever its size: the jobs travel as one JSON array
 * ($1), so there is no bind-parameter limit. $2 now, $3 the NOTIFY channel.
 *
 * - Ids are drawn from the sequence before the insert, in input order, so `batchDepRef`
 *   placeholders (-(index + 1)) are replaced by real ids in the same statement.
 * - Idempotency: a key held by a visible job resolves to that job; repeated keys in the batch
 *   resolve to their first use; a key taken by a concurrent insert is skipped by ON CONFLICT DO
 *   NOTHING and reported as `lost`, for the caller to read the winner's id afterwards.
 * - Prerequisites (positive ids) are locked FOR SHARE, so a prerequisite cannot be cancelled or
 *   fail for good between this check and the commit (its cascade would miss the new job). An
 *   unknown prerequisite, or one that already ended cancelled or failed for good, is reported
 *   in `bad` and nothing is inserted.
 *
 * Returns one row per input position: `i`, `id`, and `outcome` 'inserted' | 'existing' | 'lost'.
 */
export function addJobsSql(t: SchemaNames, options: AddStatementOptions): string {
  return `
WITH input AS MATERIALIZED (
  SELECT x.*, x.ord::integer - 1 AS i
  FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (${inputColumns(options)})) WITH ORDINALITY AS x(
    job_type, payload, max_attempts, priority, run_at, timeout_ms, force_kill_on_timeout, tags,
    idempotency_key, retry_delay, retry_backoff, retry_delay_max, dead_letter_job_type, group_id,
    group_tier, depends_on_job_ids, depends_on_tags${options.traced ? ', trace_context' : ''}, ord)
),
existing AS MATERIALIZED (
  SELECT j.id, j.idempotency_key FROM ${t.jobs} j
  WHERE j.idempotency_key IN (SELECT idempotency_key FROM input WHERE idempotency_key IS NOT NULL)
),
first_use AS MATERIALIZED (
  SELECT idempotency_key, min(i) AS i FROM input WHERE idempotency_key IS NOT NULL GROUP BY idempotency_key
),
fresh AS MATERIALIZED (
  -- The jobs to insert, with ids drawn in input order.
  SELECT s.i, nextval('${t.jobIdSeq}'::regclass) AS id
  FROM (
    SELECT x.i FROM input x
    LEFT JOIN existing e ON e.idempotency_key = x.idempotency_key
    LEFT JOIN first_use k ON k.idempotency_key = x.idempotency_key
    WHERE e.id IS NULL AND (k.i IS NULL OR k.i = x.i)
    ORDER BY x.i
  ) s
),
resolved AS MATERIALIZED (
  SELECT x.i, COALESCE(e.id, f.id) AS id, e.id IS NULL AS fresh,
    (e.id IS NULL AND k.i IS NOT NULL AND k.i <> x.i) AS repeat
  FROM input x
  LEFT JOIN existing e ON e.idempotency_key = x.idempotency_key
  LEFT JOIN first_use k ON k.idempotency_key = x.idempotency_key
  LEFT JOIN fresh f ON f.i = COALESCE(k.i, x.i)
),
deps AS MATERIALIZED (
  -- checked: the prerequisite must already exist (every positive id, and a placeholder whose
  -- job resolved to an existing job by its idempotency key).
  SELECT x.i, d.ord, CASE WHEN d.dep < 0 THEN r.id ELSE d.dep END AS dep_id,
    (d.dep > 0 OR NOT r.fresh) AS checked
  FROM input x
  JOIN fresh f ON f.i = x.i
  CROSS JOIN LATERAL unnest(x.depends_on_job_ids) WITH ORDINALITY AS d(dep, ord)
  LEFT JOIN resolved r ON d.dep < 0 AND r.i = -d.dep - 1
),
dep_arrays AS (
  SELECT i, array_agg(dep_id ORDER BY ord) AS ids FROM deps GROUP BY i
),
prerequisites AS MATERIALIZED (
  SELECT j.id, j.status, j.next_attempt_at FROM ${t.jobs} j
  WHERE j.id IN (SELECT dep_id FROM deps WHERE checked)
  FOR SHARE
),
bad AS MATERIALIZED (
  SELECT d.dep_id AS id, p.status
  FROM (SELECT DISTINCT dep_id FROM deps WHERE checked) d
  LEFT JOIN prerequisites p ON p.id = d.dep_id
  WHERE p.id IS NULL OR p.status = 'cancelled' OR (p.status = 'failed' AND p.next_attempt_at IS NULL)
),
inserted AS (
  INSERT INTO ${t.jobs} (id, ${insertColumns(options)}, depends_on_job_ids)
  SELECT f.id, ${insertValues('x', options)}, da.ids
  FROM fresh f
  JOIN input x ON x.i = f.i
  LEFT JOIN dep_arrays da ON da.i = f.i
  WHERE NOT EXISTS (SELECT 1 FROM bad)
  -- Keys in one global order: two batches sharing keys then wait for each other's key at
  -- most one way round, never in a cycle (deadlock).
  ORDER BY x.idempotency_key NULLS LAST, f.id
  ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
  RETURNING id, job_type, tags, idempotency_key
),
${addedEvents(t)},
${NOTIFIED}
SELECT r.i, r.id,
  CASE
    WHEN ins.id IS NULL AND f.id IS NOT NULL THEN 'lost'
    WHEN ins.id IS NOT NULL AND NOT r.repeat THEN 'inserted'
    ELSE 'existing'
  END AS outcome,
  (SELECT count(*) FROM notified) AS notified,
  (SELECT json_agg(json_build_object('id', b.id, 'status', b.status) ORDER BY b.id) FROM bad b) AS bad
FROM resolved r
LEFT JOIN fresh f ON f.id = r.id
LEFT JOIN inserted ins ON ins.id = r.id
ORDER BY r.i`;
}

/** Ids held by idempotency keys: $1 keys. Used after a concurrent insert won a key. */
export function idsByKeysSql(t: SchemaNames): string {
  return `SELECT id, idempotency_key FROM ${t.jobs} WHERE idempotency_key = ANY($1::text[])`;
}

/**
 * Points prerequisites of just-inserted jobs ($1 ids) from ids that lost an idempotency race
 * ($2) to the ids that won it ($3). Rare: a concurrent insert took a key that another job of the
 * same batch referenced with batchDepRef.
 */
export function repointDependenciesSql(t: SchemaNames): string {
  return `
UPDATE ${t.jobs} j SET depends_on_job_ids = ARRAY(
  SELECT COALESCE(m.winner, u.dep)
  FROM unnest(j.depends_on_job_ids) WITH ORDINALITY AS u(dep, ord)
  LEFT JOIN unnest($2::bigint[], $3::bigint[]) AS m(loser, winner) ON m.loser = u.dep
  ORDER BY u.ord)
WHERE j.id = ANY($1::bigint[]) AND j.depends_on_job_ids && $2::bigint[]`;
}

export function getJobSql(t: SchemaNames): string {
  return `SELECT ${jobColumns('j')} FROM ${t.jobs} j WHERE j.id = $1`;
}
