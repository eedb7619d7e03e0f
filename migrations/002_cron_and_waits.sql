-- Up Migration
-- Cron schedules (SPEC §2.9, §4.4) and waitpoint tokens of durable waits (DETAILS "Handler
-- context", "Queue-level token operations").
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

CREATE TABLE cron_schedules (
  id                BIGSERIAL PRIMARY KEY,
  schedule_name     TEXT        NOT NULL,
  cron_expression   TEXT        NOT NULL,
  job_type          TEXT        NOT NULL,
  payload           JSONB       NOT NULL,
  timezone          TEXT        NOT NULL DEFAULT 'UTC',
  allow_overlap     BOOLEAN     NOT NULL DEFAULT FALSE,
  status            TEXT        NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused')),
  max_attempts      INTEGER     NOT NULL DEFAULT 3,
  priority          INTEGER     NOT NULL DEFAULT 0,
  timeout_ms        INTEGER,
  tags              TEXT[]      NOT NULL DEFAULT '{}',
  retry_delay       DOUBLE PRECISION,
  retry_backoff     BOOLEAN,
  retry_delay_max   DOUBLE PRECISION,
  last_enqueued_at  TIMESTAMPTZ,
  -- No foreign key: cleanupOldJobs removes finished jobs, and a schedule outlives them.
  last_job_id       BIGINT,
  next_run_at       TIMESTAMPTZ NOT NULL,
  created_at        TIMESTAMPTZ NOT NULL,
  updated_at        TIMESTAMPTZ NOT NULL,
  -- Named, so a duplicate name is told apart from any other unique violation.
  CONSTRAINT cron_schedules_schedule_name_key UNIQUE (schedule_name)
);
-- Due schedules, oldest due first (getDueCronSchedules): only active ones are ever due.
CREATE INDEX cron_schedules_due_idx ON cron_schedules (next_run_at, id) WHERE status = 'active';

CREATE TABLE waitpoint_tokens (
  -- wp_<uuid>
  id            TEXT        PRIMARY KEY,
  -- The job waiting on it, once one does (the creating job until then). No foreign key, as
  -- above: a token may outlive its job's retention.
  job_id        BIGINT,
  status        TEXT        NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'completed', 'timed_out')),
  output        JSONB,
  timeout_at    TIMESTAMPTZ,
  created_at    TIMESTAMPTZ NOT NULL,
  completed_at  TIMESTAMPTZ,
  tags          TEXT[]      NOT NULL DEFAULT '{}'
);
-- Token expiry (the supervisor): open tokens with a timeout, by time.
CREATE INDEX waitpoint_tokens_timeout_idx ON waitpoint_tokens (timeout_at)
  WHERE status = 'waiting' AND timeout_at IS NOT NULL;
CREATE INDEX waitpoint_tokens_job_id_idx ON waitpoint_tokens (job_id);

-- Settling a token resumes the jobs waiting on it: find them without scanning every job.
CREATE INDEX job_queue_wait_token_idx ON job_queue (wait_token_id)
  WHERE status = 'waiting' AND wait_token_id IS NOT NULL;

-- Down Migration
DROP INDEX job_queue_wait_token_idx;
DROP TABLE waitpoint_tokens;
DROP TABLE cron_schedules;
