-- The `run-at` index: every job's id scored by its runAt, so a listing filtered by a runAt
-- range reads the range instead of walking jobs (includes/filter.lua). Each script that
-- inserts a job, changes its runAt or removes it calls one of these.
--- @include "writes"

-- After insert or a change of runAt (ZADD moves an existing entry).
local function indexRunAt(job)
  write('ZADD', K['run-at'], int(job.runAt), int(job.id))
end

local function unindexRunAt(id)
  redis.call('ZREM', K['run-at'], int(id))
end
