--[[
  One batch of the cleanup of the `processing` and `completed` events kept in the metadata of
  completed jobs (includes/events.lua; SPEC §4.9 cleanup). Walks `finished` (scored by the time
  a job finished: its completedAt for a completed job) from where the last batch stopped, up to
  ARGV[1], and removes both kept events of each completed job walked, rewriting its metadata
  without them. A job still processing keeps its `processing` event until it leaves
  processing: completed, the event goes with its `completed` one; otherwise it becomes an event
  of its own, which cleanup-events.lua removes. So a `processing` event older than the cutoff
  whose job completed after it stays until the completion is older too: an event is never
  removed before its time.
  KEYS[1] finished, KEYS[2] jobs, KEYS[3] kept-floor
  ARGV[1] olderThan (ms, exclusive); ARGV[2] batch size.
  Returns { removed, walked }: the events removed, and the jobs walked (the batch size when
  more may follow).
]]
--- @include "util"
--- @include "job"

local before, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
-- Where the last batch stopped: the score of the last job it walked, and how many jobs of
-- that score it walked (jobs completed in one call share their time).
local floor = redis.call('HMGET', K['kept-floor'], 'score', 'skip')
local score, skip = tonumber(floor[1] or '-1'), tonumber(floor[2] or '0')
local walk = redis.call('ZRANGEBYSCORE', K['finished'], score, '(' .. int(before), 'WITHSCORES', 'LIMIT', skip, limit)
local n = #walk / 2
if n == 0 then return { 0, 0 } end
local ids = {}
for i = 1, n do ids[i] = int(tonumber(walk[2 * i - 1])) end
local texts = redis.call('HMGET', K['jobs'], unpack(ids))
local removed = 0
for i, text in ipairs(texts) do
  -- Matched in the text first (includes/job.lua): most finished jobs need no decoding.
  local job = text and string.find(text, 'EventId":', 1, true) and decodeJob(text)
  if job then
    local count = (job.processingEventId and 1 or 0) + (job.completedEventId and 1 or 0)
    if count > 0 then
      job.processingEventId, job.processingEventAt, job.completedEventId = nil, nil, nil
      saveJob(job)
      removed = removed + count
    end
  end
end
local last = tonumber(walk[2 * n])
if last == score then
  skip = skip + n
else
  skip = 0
  for i = n, 1, -1 do
    if tonumber(walk[2 * i]) ~= last then break end
    skip = skip + 1
  end
end
redis.call('HSET', K['kept-floor'], 'score', int(last), 'skip', int(skip))
return { removed, n }
