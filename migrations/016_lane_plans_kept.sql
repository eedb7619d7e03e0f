-- Up Migration
-- The functions that read the two lanes for a claim and the completion's wake-up hint
-- (migration 008) are PL/pgSQL so that a session plans each of their queries once. It did not:
-- PostgreSQL's plan cache plans the first five executions of a query for their values, then
-- keeps planning each one so whenever its generic plan looks dearer than those, and every query
-- here takes a parameter that makes it look so (the window's LIMIT, the scheduled lane's time
-- bound, the completed jobs' ids and tags). So every claim and every completion planned these
-- queries again, a large part of the server's work in a default drain. The functions' settings
-- already leave each query one plan whatever its values (the lane's partial index, walked in
-- claim order; the bitmap scans of the GIN indexes), so each now keeps its generic plan from the
-- first call.
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

ALTER FUNCTION job_queue_due_head(TEXT[], INTEGER) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION job_queue_became_due(TIMESTAMPTZ) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION job_queue_has_pending_dependents(BIGINT[], TEXT[]) SET plan_cache_mode = force_generic_plan;

-- Down Migration
ALTER FUNCTION job_queue_due_head(TEXT[], INTEGER) RESET plan_cache_mode;
ALTER FUNCTION job_queue_became_due(TIMESTAMPTZ) RESET plan_cache_mode;
ALTER FUNCTION job_queue_has_pending_dependents(BIGINT[], TEXT[]) RESET plan_cache_mode;
