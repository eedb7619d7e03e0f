-- Up Migration
-- The trace context of the code that added a job (OpenTelemetry, the `telemetry` option): the
-- W3C `traceparent` value, then a space and the `tracestate` value when there is one. The span
-- that runs the job links to it, so one trace shows where a job was added and where it ran.
-- Nullable and without a default: adding it rewrites no row and takes the table lock only for
-- a moment. NULL when no trace was recorded where the job was added (no SDK registered, or
-- telemetry off), which is the case of every job added before this migration.
-- Read only by the claim statements; no index, as nothing looks a job up by it.
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

ALTER TABLE job_queue ADD COLUMN trace_context text;

-- Down Migration
ALTER TABLE job_queue DROP COLUMN trace_context;
