-- The writes every new job makes, whatever its options: its id, its payload, the indexes every
-- job is in (all, status:pending, types, run-at) and its `added` event. insertJob
-- (includes/insert.lua) adds what the options need; add-job.lua, for a job without options
-- that need more, uses these alone.
--- @include "writes"
--- @include "run-at"
--- @include "events"

local function newId()
  return redis.call('INCR', K['id'])
end

-- `job` has its `id` allocated, `jobType` and `runAt`; `payload` is the JSON text, stored
-- verbatim; `added` is the `added` event's metadata text. Scores go out as text where they
-- already are text, sparing Lua a number-to-text conversion per argument.
local function writeNewJob(job, payload, now, added)
  local sid = int(job.id)
  write('HSET', K['payloads'], sid, payload)
  write('ZADD', K['all'], sid, sid)
  write('ZADD', K['status:pending'], sid, sid)
  write('ZADD', K['types'], '0', job.jobType .. '\0' .. pad(job.id))
  indexRunAt(job)
  addEvent(job.id, 'added', now, added)
end

-- The stored metadata text of a new job from `text`, the metadata the client encoded without
-- `id` (record.ts toStoredJobText): the id goes in front, nothing is decoded.
local function withId(sid, text)
  return '{"id":' .. sid .. ',' .. string.sub(text, 2)
end
