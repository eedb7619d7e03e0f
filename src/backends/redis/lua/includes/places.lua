-- The writes that put a job in `ready` (with `ready-by-type`) or in `scheduled`. Which place a
-- job belongs in is decided by store() (includes/state.lua); add-job.lua, for a new job
-- without prerequisites, decides the same by its runAt alone.
--- @include "writes"

-- Score -priority: ZRANGE order is priority desc, then (equal scores) id asc.
local function enterReady(job)
  write('ZADD', K['ready'], int(-job.priority), pad(job.id))
  write('ZADD', K['ready-by-type'], '0', typedReadyMember(job))
end

local function enterScheduled(job, due)
  write('ZADD', K['scheduled'], due, pad(job.id))
end
