--[[
  Edits a cron schedule (SPEC §4.4): only the given fields change; a status change moves it
  into or out of `cron-due`, a new nextRunAt moves its entry; a new name must be free.
  KEYS[1] cron, KEYS[2] cron-payloads, KEYS[3] cron-names, KEYS[4] cron-due
  ARGV[1] schedule id; ARGV[2] the changed fields as JSON (stored names and forms, no
  payload); ARGV[3] the new payload's JSON text, or '' to keep it; ARGV[4] now (ms).
  Returns 1 when edited, 0 when the schedule does not exist, { 'taken', id } when the new
  name belongs to another schedule (nothing written).
]]
--- @include "util"
--- @include "cron"

local s = loadSchedule(tonumber(ARGV[1]))
if not s then return 0 end
local changes = cjson.decode(ARGV[2])
local rename = changes.scheduleName and changes.scheduleName ~= s.scheduleName
if rename then
  local taken = redis.call('HGET', K['cron-names'], changes.scheduleName)
  if taken then return { 'taken', tonumber(taken) } end
  redis.call('HDEL', K['cron-names'], s.scheduleName)
  redis.call('HSET', K['cron-names'], changes.scheduleName, int(s.id))
end
for field, value in pairs(changes) do s[field] = value end
s.updatedAt = tonumber(ARGV[4])
saveSchedule(s)
if ARGV[3] ~= '' then redis.call('HSET', K['cron-payloads'], int(s.id), ARGV[3]) end
return 1
