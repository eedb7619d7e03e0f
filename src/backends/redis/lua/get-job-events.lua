--[[
  Reads a job's event history, oldest first. Read only.
  KEYS[1] job-events, KEYS[2] events
  ARGV[1] job id.
  Returns an array of event JSON texts.
]]
--- @include "util"

local p = pad(tonumber(ARGV[1]))
local members = redis.call('ZRANGEBYLEX', K['job-events'], '[' .. p .. '\0', '(' .. p .. '\1')
if #members == 0 then return {} end
local eventIds = {}
for i, m in ipairs(members) do eventIds[i] = int(idFromMember(m)) end
local texts = redis.call('HMGET', K['events'], unpack(eventIds))
local out = {}
for _, text in ipairs(texts) do
  if text then out[#out + 1] = text end
end
return out
