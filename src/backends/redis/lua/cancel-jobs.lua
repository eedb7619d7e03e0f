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
  KEYS[22] tags, KEYS[23] token-waiters, KEYS[24] blocked, KEYS[25] parked, KEYS[26] wake,
  KEYS[27] run-at
  ARGV[1] now (ms); ARGV[2] job id, or '' to select by filter; ARGV[3] filter query JSON
  (see includes/filter.lua), used when ARGV[2] is ''; ARGV[4] the slice cursor ('' for the
  first slice), ARGV[5] the most candidate jobs this call examines (a filter selects in bounded
  slices, newest first, so no call holds the server long; the caller repeats until the cursor
  is 0).
  Returns { cancelledIds, cascaded, next cursor } where cascaded is an array of
  { jobId, cascadeFrom } and the cursor is 0 when no slice is left.
]]
--- @include "util"
--- @include "job"
--- @include "events"
--- @include "wake"
--- @include "state"
--- @include "cascade"
--- @include "filter"

local now = tonumber(ARGV[1])
local cancelled, cascaded = {}, {}
local ids, cursor = selectedIds('pending', 4)
-- Writes nothing here reads back go out as one command per key at the end (includes/writes.lua):
-- the events, and the entries of the jobs' new status and place. A job is cancelled once per
-- call, so the removal of its old place (store(), at once) comes before the new entry.
deferWrites({ K['events'], K['job-events'], K['event-times'], K['status:cancelled'], K['finished'] })
for _, id in ipairs(ids) do
  local job = loadJob(id)
  -- A dependent cancelled by an earlier slice's cascade is no longer pending.
  if isCancellable(job) then
    cancelOne(job, now, nil)
    cancelled[#cancelled + 1] = id
  end
end
cascadeCancel(cancelled, now, cascaded)
flushWrites()
-- Parked jobs a cancelled job held back may run now.
if releasedAny() then signalWake() end
return { cancelled, cascaded, cursor }
