--[[
  Deletes a cron schedule's definition (SPEC §4.4); the jobs it enqueued stay.
  KEYS[1] cron, KEYS[2] cron-payloads, KEYS[3] cron-names, KEYS[4] cron-due
  ARGV[1] schedule id.
  Returns 1 when removed, 0 when it did not exist.
]]
--- @include "util"
--- @include "cron"

local s = loadSchedule(tonumber(ARGV[1]))
if not s then return 0 end
local sid = int(s.id)
redis.call('HDEL', K['cron'], sid)
redis.call('HDEL', K['cron-payloads'], sid)
if redis.call('HGET', K['cron-names'], s.scheduleName) == sid then redis.call('HDEL', K['cron-names'], s.scheduleName) end
redis.call('ZREM', K['cron-due'], pad(s.id))
return 1
