-- Up Migration
-- Cheaper adds: the two listing indexes become ascending. Both served `ORDER BY id DESC` by
-- being built on `id DESC`, so every new job (a new, highest id) went to the front of its status
-- or job type, which a btree handles as a random insert: a descent from the root for each job,
-- and page splits in the middle that leave both halves half full. In ascending order a new job
-- goes to the end of its status or job type, where PostgreSQL splits pages as it does for an
-- append (full pages, and a cached rightmost page for the last key). The same listings read the
-- ascending index backwards; their order does not change.
--
-- Plain CREATE INDEX: the runner applies each file in one transaction, where CREATE INDEX
-- CONCURRENTLY cannot run. Writes to job_queue wait while the two indexes are built.
-- Unqualified names: `queue-cli migrate --schema X` sets the search_path to X.

DROP INDEX job_queue_status_idx;
CREATE INDEX job_queue_status_idx ON job_queue (status, id);
DROP INDEX job_queue_job_type_idx;
CREATE INDEX job_queue_job_type_idx ON job_queue (job_type, id);

-- Down Migration
DROP INDEX job_queue_job_type_idx;
CREATE INDEX job_queue_job_type_idx ON job_queue (job_type, id DESC);
DROP INDEX job_queue_status_idx;
CREATE INDEX job_queue_status_idx ON job_queue (status, id DESC);
