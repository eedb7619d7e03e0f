--[[
  Reads the active cron schedules whose nextRunAt has come (SPEC §4.4 rule 1), oldest due
  first (ties by id). Read only.
  KEYS[1] cron, KEYS[2] cron-payloads, KEYS[3] cron-due
  ARGV[1] now (ms, inclusive); ARGV[2] limit.
  Returns an array of { schedule JSON, payload JSON }.
]]
--- @include "util"
--- @include "cron-row"

local out = {}
for _, m in ipairs(redis.call('ZRANGEBYSCORE', K['cron-due'], '-inf', tonumber(ARGV[1]), 'LIMIT', 0, tonumber(ARGV[2]))) do
  local id = tonumber(m)
  local meta = redis.call('HGET', K['cron'], int(id))
  if meta then out[#out + 1] = scheduleRow(id, meta) end
end
return out
