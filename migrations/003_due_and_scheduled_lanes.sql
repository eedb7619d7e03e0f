-- Up Migration
-- Keeps due and future jobs apart, so the cost of a claim does not grow with the number of jobs
-- scheduled ahead (or waiting, or failed with a retry to come), nor with jobs of other types when
-- a processor claims only some types.
--
-- A job is in the DUE LANE when its ready time is at or before the time a claim (or its insert)
-- last saw it: ready_at <= COALESCE(promoted_at, created_at). A job added due, or put back due,
-- is there at once. Every other claimable job is in the SCHEDULED LANE, indexed by ready_at;
-- each claim moves the jobs of that lane that have become due into the due lane (setting
-- promoted_at), so the claim walks only due jobs, in priority order. When a job's ready time
-- moves later (a retry, a wait, an edit), it leaves the due lane by itself: the lanes are
-- predicates on the row, never a flag another statement has to keep right.
--
-- Plain CREATE INDEX: the runner applies each file in one transaction, where CREATE INDEX
-- CONCURRENTLY cannot run. Writes to job_queue wait while the two indexes are built.
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

-- When a claim last found this job due. NULL until then: created_at stands in.
ALTER TABLE job_queue ADD COLUMN promoted_at TIMESTAMPTZ;

-- The claim: due jobs by priority, then age (SPEC: priority ties run oldest first).
CREATE INDEX job_queue_due_idx ON job_queue (priority DESC, created_at, id)
  WHERE ready_at <= COALESCE(promoted_at, created_at);
-- The claim of a processor limited to some job types: the same order within one type.
CREATE INDEX job_queue_due_by_type_idx ON job_queue (job_type, priority DESC, created_at, id)
  WHERE ready_at <= COALESCE(promoted_at, created_at);
-- Jobs that are not due yet, by the time they become due.
CREATE INDEX job_queue_scheduled_idx ON job_queue (ready_at)
  WHERE ready_at > COALESCE(promoted_at, created_at);
DROP INDEX job_queue_claim_idx;

-- Down Migration
CREATE INDEX job_queue_claim_idx ON job_queue (priority DESC, created_at, id) INCLUDE (ready_at, job_type)
  WHERE ready_at IS NOT NULL;
DROP INDEX job_queue_scheduled_idx;
DROP INDEX job_queue_due_by_type_idx;
DROP INDEX job_queue_due_idx;
ALTER TABLE job_queue DROP COLUMN promoted_at;
