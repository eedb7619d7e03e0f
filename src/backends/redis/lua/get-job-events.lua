--[[
  Reads a job's event history, oldest first. Read only.
  KEYS[1] job-events, KEYS[2] events, KEYS[3] jobs, KEYS[4] added-floor
  ARGV[1] job id.
  Returns an array of event JSON texts. An `added` event kept in the job's metadata
  (`addedEventId`, includes/new-job.lua) comes first, with the default metadata, unless the
  cleanup removed it: the job is below the floor and was added before its time
  (cleanup-added-events.lua).
]]
--- @include "util"

local id = tonumber(ARGV[1])
local out = {}
local meta = redis.call('HGET', K['jobs'], int(id))
if meta and string.find(meta, '"addedEventId":', 1, true) then
  local job = cjson.decode(meta)
  local floor = redis.call('HMGET', K['added-floor'], 'below', 'before')
  local removed = floor[1] and id < tonumber(floor[1]) and job.createdAt < tonumber(floor[2])
  if not removed then
    out[1] = '{"id":' .. int(job.addedEventId) .. ',"jobId":' .. int(id) .. ',"eventType":"added","createdAt":'
      .. int(job.createdAt) .. ',"metadata":{"jobType":' .. cjson.encode(job.jobType)
      .. ',"tags":[],"idempotencyKey":null}}'
  end
end
local p = pad(id)
local members = redis.call('ZRANGEBYLEX', K['job-events'], '[' .. p .. '\0', '(' .. p .. '\1')
if #members == 0 then return out end
local eventIds = {}
for i, m in ipairs(members) do eventIds[i] = int(idFromMember(m)) end
local texts = redis.call('HMGET', K['events'], unpack(eventIds))
for _, text in ipairs(texts) do
  if text then out[#out + 1] = text end
end
return out
