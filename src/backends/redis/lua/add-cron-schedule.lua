--[[
  Inserts a cron schedule (SPEC §2.9, §4.4), active, with a unique name. A taken name writes
  nothing.
  KEYS[1] cron:id, KEYS[2] cron, KEYS[3] cron-payloads, KEYS[4] cron-names, KEYS[5] cron-due
  ARGV[1] schedule JSON without id (includes/cron.lua); ARGV[2] payload JSON text.
  Returns the new id, or { 'taken', id } when the name belongs to schedule id.
]]
--- @include "util"
--- @include "cron"

local s = cjson.decode(ARGV[1])
local taken = redis.call('HGET', K['cron-names'], s.scheduleName)
if taken then return { 'taken', tonumber(taken) } end
s.id = redis.call('INCR', K['cron:id'])
saveSchedule(s)
redis.call('HSET', K['cron-payloads'], int(s.id), ARGV[2])
redis.call('HSET', K['cron-names'], s.scheduleName, int(s.id))
return s.id
