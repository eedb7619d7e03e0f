--[[
  Cancels one pending or waiting job, or every pending job matching a filter, then cancels
  their pending/waiting dependents transitively (SPEC §3, §4.3, §4.8). Events `cancelled`:
  metadata null for requested jobs, { cascadeFrom } for dependents. A waiting job leaves
  `scheduled` (timed wait) or its token's waiters (token wait).
  KEYS[1] jobs, KEYS[2] status:pending, KEYS[3] status:processing, KEYS[4] status:completed,
  KEYS[5] status:failed, KEYS[6] status:cancelled, KEYS[7] status:waiting, KEYS[8] ready,
  KEYS[9] ready-by-type, KEYS[10] scheduled, KEYS[11] processing, KEYS[12] finished,
  KEYS[13] groups, KEYS[14] event:id, KEYS[15] events, KEYS[16] job-events,
  KEYS[17] event-times, KEYS[18] deps, KEYS[19] tag-deps, KEYS[20] all, KEYS[21] types,
  KEYS[22] tags, KEYS[23] token-waiters, KEYS[24] blocked
  ARGV[1] now (ms); ARGV[2] job id, or '' to select by filter; ARGV[3] filter query JSON
  (see includes/filter.lua), used when ARGV[2] is ''.
  Returns { cancelledIds, cascaded } where cascaded is an array of { jobId, cascadeFrom }.
]]
--- @include "util"
--- @include "job"
--- @include "events"
--- @include "state"
--- @include "cascade"
--- @include "filter"

local now = tonumber(ARGV[1])
local cancelled, cascaded = {}, {}
if ARGV[2] ~= '' then
  local job = loadJob(tonumber(ARGV[2]))
  if isCancellable(job) then
    cancelOne(job, now, nil)
    cancelled[1] = job.id
  end
else
  local query = cjson.decode(ARGV[3])
  query.status = 'pending'
  for _, id in ipairs(selectIds(query, nil, 0)) do
    local job = loadJob(id)
    cancelOne(job, now, nil)
    cancelled[#cancelled + 1] = id
  end
end
cascadeCancel(cancelled, now, cascaded)
return { cancelled, cascaded }
