--[[
  Reads one job (SPEC §4.2) with its payload, output and step data, in one atomic read.
  KEYS[1] jobs, KEYS[2] payloads, KEYS[3] outputs, KEYS[4] steps, KEYS[5] step-names
  ARGV[1] job id.
  Returns { metadata JSON, payload JSON, output JSON or nil, step data JSON or nil }
  (includes/row.lua), or nil when the job does not exist.
]]
--- @include "util"
--- @include "row"

local id = tonumber(ARGV[1])
local meta = redis.call('HGET', K['jobs'], int(id))
if not meta then return false end
return jobRow(id, meta)
