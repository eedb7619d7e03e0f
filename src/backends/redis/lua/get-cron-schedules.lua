--[[
  Reads cron schedules (SPEC §4.4): one by id, one by name, or all (optionally only one
  status), ordered by id. Read only.
  KEYS[1] cron, KEYS[2] cron-payloads, KEYS[3] cron-names
  ARGV[1] id, or ''; ARGV[2] name, or ''; ARGV[3] status ('active' or 'paused'), or ''.
  Returns an array of { schedule JSON, payload JSON }.
]]
--- @include "util"
--- @include "cron-row"

local ids = {}
if ARGV[1] ~= '' then
  ids[1] = tonumber(ARGV[1])
elseif ARGV[2] ~= '' then
  local id = redis.call('HGET', K['cron-names'], ARGV[2])
  if id then ids[1] = tonumber(id) end
else
  for i, id in ipairs(redis.call('HKEYS', K['cron'])) do ids[i] = tonumber(id) end
  table.sort(ids)
end

local out = {}
for _, id in ipairs(ids) do
  local meta = redis.call('HGET', K['cron'], int(id))
  if meta and (ARGV[3] == '' or cjson.decode(meta).status == ARGV[3]) then
    out[#out + 1] = scheduleRow(id, meta)
  end
end
return out
