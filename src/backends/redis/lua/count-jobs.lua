--[[
  Counts jobs matching a query, up to a limit (SPEC §4.2). Read only. A query one index answers
  exactly is counted from that index at once; any other walks its candidates in bounded slices,
  newest first, and the caller adds the slices up.
  KEYS[1] jobs, KEYS[2] all, KEYS[3] status:pending, KEYS[4] status:processing,
  KEYS[5] status:completed, KEYS[6] status:failed, KEYS[7] status:cancelled,
  KEYS[8] status:waiting, KEYS[9] types, KEYS[10] tags, KEYS[11] run-at
  ARGV[1] query JSON (see includes/filter.lua); ARGV[2] the most matches still to count;
  ARGV[3] the slice cursor ('' for the first slice); ARGV[4] the most candidate jobs this call
  examines.
  Returns { matches counted, next cursor (0 when the walk is over) }.
]]
--- @include "util"
--- @include "job"
--- @include "filter"

local query = cjson.decode(ARGV[1])
local limit = tonumber(ARGV[2])
if ARGV[3] == '' then
  local source, check = bestSource(query)
  -- An index holding exactly the matches: its size is the count.
  if not check and source.fetch then return { math.min(source.count, limit), 0 } end
end
local ids, _, cursor = sliceIds(query, tonumber(ARGV[3]), tonumber(ARGV[4]), 0, limit)
return { #ids, cursor }
