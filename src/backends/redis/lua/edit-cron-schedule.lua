--[[
  Edits a cron schedule (SPEC §4.4): only the given fields change; a status change moves it
  into or out of `cron-due`, a new nextRunAt moves its entry. The name never changes.
  KEYS[1] cron, KEYS[2] cron-payloads, KEYS[3] cron-due
  ARGV[1] schedule id; ARGV[2] the changed fields as JSON (stored names and forms, no
  payload); ARGV[3] the new payload's JSON text, or '' to keep it; ARGV[4] now (ms).
  Returns 1 when edited, 0 when the schedule does not exist.
]]
--- @include "util"
--- @include "cron"

local s = loadSchedule(tonumber(ARGV[1]))
if not s then return 0 end
local changes = cjson.decode(ARGV[2])
for field, value in pairs(changes) do s[field] = value end
s.updatedAt = tonumber(ARGV[4])
saveSchedule(s)
if ARGV[3] ~= '' then redis.call('HSET', K['cron-payloads'], int(s.id), ARGV[3]) end
return 1
