--[[
  Lists jobs matching a query, newest first (SPEC §4.2). Read only.
  KEYS[1] jobs, KEYS[2] payloads, KEYS[3] outputs, KEYS[4] steps, KEYS[5] all,
  KEYS[6] status:pending, KEYS[7] status:processing, KEYS[8] status:completed,
  KEYS[9] status:failed, KEYS[10] status:cancelled, KEYS[11] status:waiting,
  KEYS[12] types, KEYS[13] tags, KEYS[14] step-names, KEYS[15] run-at
  ARGV[1] query JSON (see includes/filter.lua); ARGV[2] limit ('' for all); ARGV[3] matches
  still to skip (the offset); ARGV[4] the slice cursor ('' for the first slice); ARGV[5] the
  most candidate jobs this call examines. A listing runs in bounded slices, newest first, so no
  call holds the server long: the caller repeats with the returned cursor, fewer to skip and a
  smaller limit until the cursor is 0 or the limit is met.
  ARGV[6] with a payload search (query `search`: text already lowered, letters A-Z only): how
  many more jobs matching the rest of the query the walk may still look at ('' without a
  search). Their payloads are read and the walk ends once that many were looked at. A search
  with query `below` (a keyset page) counts the jobs at or above that id against the bound
  without reading their payloads, and keeps none of them.
  Returns { rows, matches skipped, next cursor (0 when the walk is over), jobs left to look at
  (ARGV[6] less those this call looked at; 0 without a search) }, each row { metadata JSON,
  payload JSON, output JSON or nil, step data JSON or nil } (includes/row.lua).
]]
--- @include "util"
--- @include "job"
--- @include "filter"
--- @include "row"

local query = cjson.decode(ARGV[1])
local limit = ARGV[2] ~= '' and tonumber(ARGV[2]) or nil
local skip = tonumber(ARGV[3]) or 0
local scanLeft = tonumber(ARGV[6]) or 0
-- A payload search: a job matching the rest of the query counts against the scan bound, then
-- its payload text (verbatim JSON, lowered like the search text: A-Z only) must hold the text.
local payloadTest = nil
if query.search then
  payloadTest = {
    test = function(id)
      scanLeft = scanLeft - 1
      if query.below and id >= query.below then return false end
      local text = redis.call('HGET', K['payloads'], int(id))
      return text ~= false and string.find(string.lower(text), query.search, 1, true) ~= nil
    end,
    over = function() return scanLeft <= 0 end,
  }
  if scanLeft <= 0 then return { {}, 0, 0, 0 } end
end
local ids, skipped, cursor = sliceIds(query, tonumber(ARGV[4]), tonumber(ARGV[5]), skip, limit, payloadTest)
local rows = {}
for i, id in ipairs(ids) do
  rows[i] = jobRow(id)
end
return { rows, skipped, cursor, scanLeft }
