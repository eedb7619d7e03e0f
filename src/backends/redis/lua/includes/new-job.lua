-- The writes every new job makes, whatever its options: its id, its payload, the indexes every
-- job is in (all, status:pending, types, run-at) and its `added` event. An `added` event whose
-- metadata is the default (the client sends '': no tags, no idempotency key) is kept in the
-- job's metadata as `addedEventId`, its id, instead of the three entries of an event
-- (get-job-events.lua gives it back; cleanup-added-events.lua removes it by a floor). insertJob
-- (includes/insert.lua) adds what the options need; add-job.lua, for a job without options
-- that need more, uses these alone.
--- @include "writes"
--- @include "run-at"
--- @include "events"

local function newId()
  return redis.call('INCR', K['id'])
end

-- `job` has its `id` allocated, `jobType` and `runAt`; `payload` is the JSON text, stored
-- verbatim; `added` is the `added` event's metadata text, or '' to keep the event in the
-- metadata (sets job.addedEventId, which withId or the encoding of `job` then stores). Scores
-- go out as text where they already are text, sparing Lua a number-to-text conversion per
-- argument.
local function writeNewJob(job, payload, now, added)
  local sid = int(job.id)
  write('HSET', K['payloads'], sid, payload)
  write('ZADD', K['all'], sid, sid)
  write('ZADD', K['status:pending'], sid, sid)
  write('ZADD', K['types'], '0', job.jobType .. '\0' .. pad(job.id))
  indexRunAt(job)
  if added == '' then
    job.addedEventId = keptEventId()
  else
    addEvent(job.id, 'added', now, added)
  end
end

-- The stored metadata text of new `job` from `text`, the metadata the client encoded without
-- `id` (record.ts toStoredJobText): the id, and the id of an `added` event kept in it, go in
-- front; nothing is decoded.
local function withId(job, text)
  local kept = job.addedEventId and (',"addedEventId":' .. int(job.addedEventId)) or ''
  return '{"id":' .. int(job.id) .. kept .. ',' .. string.sub(text, 2)
end
