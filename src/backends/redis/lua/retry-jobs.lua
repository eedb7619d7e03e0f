--[[
  Retries one failed or cancelled job, or every failed job matching a filter (SPEC §3): back
  to pending, due now at the latest, with a fresh attempt budget, lastRetriedAt set, event
  `retried` per job, one wake-up signal.
  KEYS[1] jobs, KEYS[2] status:pending, KEYS[3] status:processing, KEYS[4] status:completed,
  KEYS[5] status:failed, KEYS[6] status:cancelled, KEYS[7] status:waiting, KEYS[8] ready,
  KEYS[9] ready-by-type, KEYS[10] scheduled, KEYS[11] processing, KEYS[12] finished,
  KEYS[13] groups, KEYS[14] event:id, KEYS[15] events, KEYS[16] job-events,
  KEYS[17] event-times, KEYS[18] wake, KEYS[19] blocked, KEYS[20] tags, KEYS[21] parked,
  KEYS[22] run-at, KEYS[23] all, KEYS[24] types
  ARGV[1] now (ms); ARGV[2] job id, or '' to select by filter; ARGV[3] filter query JSON
  (see includes/filter.lua), used when ARGV[2] is ''; ARGV[4] the slice cursor ('' for the
  first slice), ARGV[5] the most candidate jobs this call examines (a filter selects failed
  jobs in bounded slices, newest first; the caller repeats until the cursor is 0).
  Returns { retried ids, next cursor (0 when no slice is left) }.
]]
--- @include "util"
--- @include "job"
--- @include "events"
--- @include "wake"
--- @include "state"
--- @include "run-at"
--- @include "filter"

local now = tonumber(ARGV[1])

local function retryOne(job)
  transition(job, 'pending', now)
  job.attempts = 0
  job.nextAttemptAt = nil
  job.lastRetriedAt = now
  -- Due now at the latest: a cancelled job may have been scheduled for later.
  if job.runAt > now then
    job.runAt = now
    indexRunAt(job)
  end
  -- A job that ended before transition() cleared the lock of jobs leaving processing keeps one.
  job.lockedAt = nil
  job.lockedBy = nil
  job.pendingReason = nil
  job.waitUntil = nil
  job.waitTokenId = nil
  store(job, now)
  addEvent(job.id, 'retried', now, nil)
end

-- One job by id may be failed or cancelled; a filter selects failed jobs only.
local byId = ARGV[2] ~= ''
local ids, cursor = selectedIds('failed', 4)
local retried = {}
for _, id in ipairs(ids) do
  local job = loadJob(id)
  if job and (job.status == 'failed' or (byId and job.status == 'cancelled')) then
    retryOne(job)
    retried[#retried + 1] = id
  end
end
if #retried > 0 then signalWake() end
return { retried, cursor }
