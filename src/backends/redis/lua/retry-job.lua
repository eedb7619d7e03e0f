--[[
  Retries a failed or cancelled job (SPEC §3): back to pending, due now at the latest, with a
  fresh attempt budget, lastRetriedAt set, event `retried`, wake-up signal.
  KEYS[1] jobs, KEYS[2] status:pending, KEYS[3] status:processing, KEYS[4] status:completed,
  KEYS[5] status:failed, KEYS[6] status:cancelled, KEYS[7] status:waiting, KEYS[8] ready,
  KEYS[9] ready-by-type, KEYS[10] scheduled, KEYS[11] processing, KEYS[12] finished,
  KEYS[13] groups, KEYS[14] event:id, KEYS[15] events, KEYS[16] job-events,
  KEYS[17] event-times, KEYS[18] wake, KEYS[19] blocked, KEYS[20] tags, KEYS[21] parked,
  KEYS[22] run-at
  ARGV[1] job id; ARGV[2] now (ms).
  Returns 1 when the job was retried, 0 when it does not exist or its status does not allow it.
]]
--- @include "util"
--- @include "job"
--- @include "events"
--- @include "wake"
--- @include "state"
--- @include "run-at"

local now = tonumber(ARGV[2])
local job = loadJob(tonumber(ARGV[1]))
if not job or (job.status ~= 'failed' and job.status ~= 'cancelled') then return 0 end
transition(job, 'pending', now)
job.attempts = 0
job.nextAttemptAt = NULL
job.lastRetriedAt = now
-- Due now at the latest: a cancelled job may have been scheduled for later.
if job.runAt > now then
  job.runAt = now
  indexRunAt(job)
end
-- A job that ended before transition() cleared the lock of jobs leaving processing keeps one.
job.lockedAt = NULL
job.lockedBy = NULL
job.pendingReason = NULL
job.waitUntil = NULL
job.waitTokenId = NULL
store(job, now)
addEvent(job.id, 'retried', now, nil)
signalWake()
return 1
