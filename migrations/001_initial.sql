-- Up Migration
-- queuedev schema: jobs and their event history.
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

CREATE TABLE job_queue (
  id                     BIGSERIAL PRIMARY KEY,
  job_type               TEXT        NOT NULL,
  payload                JSONB       NOT NULL,
  status                 TEXT        NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'cancelled', 'waiting')),
  attempts               INTEGER     NOT NULL DEFAULT 0,
  max_attempts           INTEGER     NOT NULL DEFAULT 3,
  priority               INTEGER     NOT NULL DEFAULT 0,
  run_at                 TIMESTAMPTZ NOT NULL,
  next_attempt_at        TIMESTAMPTZ,
  timeout_ms             INTEGER,
  force_kill_on_timeout  BOOLEAN     NOT NULL DEFAULT FALSE,
  tags                   TEXT[]      NOT NULL DEFAULT '{}',
  idempotency_key        TEXT,
  retry_delay            DOUBLE PRECISION,
  retry_backoff          BOOLEAN,
  retry_delay_max        DOUBLE PRECISION,
  dead_letter_job_type   TEXT,
  dead_lettered_at       TIMESTAMPTZ,
  dead_letter_job_id     BIGINT,
  group_id               TEXT,
  group_tier             TEXT,
  depends_on_job_ids     BIGINT[],
  depends_on_tags        TEXT[],
  pending_reason         TEXT,
  error_history          JSONB       NOT NULL DEFAULT '[]',
  failure_reason         TEXT CHECK (failure_reason IN ('timeout', 'handler_error', 'no_handler')),
  progress               SMALLINT,
  output                 JSONB,
  step_data              JSONB,
  wait_until             TIMESTAMPTZ,
  wait_token_id          TEXT,
  created_at             TIMESTAMPTZ NOT NULL,
  updated_at             TIMESTAMPTZ NOT NULL,
  locked_at              TIMESTAMPTZ,
  locked_by              TEXT,
  started_at             TIMESTAMPTZ,
  completed_at           TIMESTAMPTZ,
  last_retried_at        TIMESTAMPTZ,
  last_failed_at         TIMESTAMPTZ,
  last_cancelled_at      TIMESTAMPTZ,
  -- When the job can next be claimed: pending at run_at, a failed job at its retry time, a
  -- waiting job at its wake-up time; NULL when it cannot be claimed. Derived, never written.
  ready_at               TIMESTAMPTZ GENERATED ALWAYS AS (
    CASE status
      WHEN 'pending' THEN run_at
      WHEN 'failed' THEN next_attempt_at
      WHEN 'waiting' THEN wait_until
    END
  ) STORED
);

-- The claim query: claimable jobs by priority, then age (SPEC: priority ties run oldest first).
CREATE INDEX job_queue_claim_idx ON job_queue (priority DESC, created_at, id) INCLUDE (ready_at, job_type)
  WHERE ready_at IS NOT NULL;
-- At most one job per idempotency key, whatever its status (SPEC §4.1 rule 3).
CREATE UNIQUE INDEX job_queue_idempotency_key_idx ON job_queue (idempotency_key)
  WHERE idempotency_key IS NOT NULL;
-- Listing by status, newest first.
CREATE INDEX job_queue_status_idx ON job_queue (status, id DESC);
CREATE INDEX job_queue_job_type_idx ON job_queue (job_type, id DESC);
CREATE INDEX job_queue_tags_idx ON job_queue USING GIN (tags);
-- Reclaim: processing jobs by lock time.
CREATE INDEX job_queue_locked_at_idx ON job_queue (locked_at) WHERE status = 'processing';
-- Cleanup of finished jobs by age.
CREATE INDEX job_queue_finished_idx ON job_queue (updated_at)
  WHERE status IN ('completed', 'cancelled', 'failed');
-- Dependents of a job (cascade cancel, prerequisite checks) and tag barriers.
CREATE INDEX job_queue_depends_on_job_ids_idx ON job_queue USING GIN (depends_on_job_ids)
  WHERE depends_on_job_ids IS NOT NULL;
CREATE INDEX job_queue_depends_on_tags_idx ON job_queue USING GIN (depends_on_tags)
  WHERE depends_on_tags IS NOT NULL;
-- Tag barriers hold only while a job carrying the tags is active: index just the active jobs,
-- so a barrier check never wades through finished jobs kept for their retention period. No
-- fastupdate: claims read it, and a long pending list would be scanned on every check.
CREATE INDEX job_queue_active_tags_idx ON job_queue USING GIN (tags) WITH (fastupdate = off)
  WHERE status IN ('pending', 'processing', 'waiting');
-- Group limits: processing jobs per group.
CREATE INDEX job_queue_group_processing_idx ON job_queue (group_id)
  WHERE status = 'processing' AND group_id IS NOT NULL;

CREATE TABLE job_events (
  id          BIGSERIAL PRIMARY KEY,
  job_id      BIGINT      NOT NULL,
  event_type  TEXT        NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL,
  metadata    JSONB
);
CREATE INDEX job_events_job_id_idx ON job_events (job_id, id);
CREATE INDEX job_events_created_at_idx ON job_events (created_at);

-- Tag barrier (dependsOn.tags): true when no OTHER pending, processing or waiting job carries
-- every one of p_tags. A function, so the check always uses job_queue_active_tags_idx: written
-- inline, the planner prefers a sequential scan in the hope of an early match, which reads the
-- whole table whenever the barrier is clear. The search_path is pinned to this schema.
CREATE FUNCTION job_queue_tag_barrier_clear(p_tags TEXT[], p_self BIGINT) RETURNS BOOLEAN
LANGUAGE sql STABLE PARALLEL SAFE
SET enable_seqscan = off
SET jit = off
SET search_path FROM CURRENT
AS $$
  SELECT NOT EXISTS (
    SELECT 1 FROM job_queue o
    WHERE o.tags @> p_tags AND o.id <> p_self AND o.status IN ('pending', 'processing', 'waiting'))
$$;

-- Down Migration
DROP FUNCTION job_queue_tag_barrier_clear(TEXT[], BIGINT);
DROP TABLE job_events;
DROP TABLE job_queue;
