--[[
  Inserts a cron schedule (SPEC §2.9, §4.4), active, with a unique name. A taken name writes
  nothing.
  KEYS[1] cron:id, KEYS[2] cron, KEYS[3] cron-payloads, KEYS[4] cron-names, KEYS[5] cron-due, KEYS[6] meta
  ARGV[1] schedule JSON without id (includes/cron.lua); ARGV[2] payload JSON text.
  ARGV[3] the store id the queue expects (includes/store.lua): a different or missing one
  raises a QUEUEDEV_STORE_RESET error before anything is written.
  Returns the new id, or { 'taken', id } when the name belongs to schedule id.
]]
--- @include "util"
--- @include "cron"
--- @include "store"

checkStore(ARGV[3])

local s = cjson.decode(ARGV[1])
local taken = redis.call('HGET', K['cron-names'], s.scheduleName)
if taken then return { 'taken', tonumber(taken) } end
s.id = redis.call('INCR', K['cron:id'])
saveSchedule(s)
redis.call('HSET', K['cron-payloads'], int(s.id), ARGV[2])
redis.call('HSET', K['cron-names'], s.scheduleName, int(s.id))
return s.id
