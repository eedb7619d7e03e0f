--[[
  Removes up to a batch of events created before a time (SPEC §4.9 cleanup).
  KEYS[1] events, KEYS[2] job-events, KEYS[3] event-times
  ARGV[1] olderThan (ms, exclusive); ARGV[2] batch size.
  Returns the number of events removed (fewer than the batch size: nothing older is left).
]]
--- @include "util"

local eventIds = redis.call('ZRANGEBYSCORE', K['event-times'], '-inf', '(' .. ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #eventIds == 0 then return 0 end
local texts = redis.call('HMGET', K['events'], unpack(eventIds))
for i, eid in ipairs(eventIds) do
  local text = texts[i]
  if text then
    -- Every event text starts {"id":N,"jobId":M (events.lua); reading the job id from that
    -- prefix avoids decoding metadata that may hold a large payload.
    local jobId = tonumber(string.match(text, '^{"id":%d+,"jobId":(%d+)'))
    if jobId then redis.call('ZREM', K['job-events'], pad(jobId) .. '\0' .. pad(tonumber(eid))) end
  end
end
redis.call('HDEL', K['events'], unpack(eventIds))
redis.call('ZREM', K['event-times'], unpack(eventIds))
return #eventIds
