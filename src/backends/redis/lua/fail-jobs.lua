--[[
  Records failed attempts, each fenced: only while the job is processing and locked by the given
  worker (SPEC §3, §4.5; DETAILS "Retries, failures, reclaim"). Appends { message, timestamp,
  stack? } to errorHistory, clears the lock and sets failureReason and lastFailedAt. With a retry time the job waits in
  `scheduled` (status failed, nextAttemptAt set); without one it ends failed, is routed to its
  dead-letter type (SPEC §2.5 envelope around the verbatim payload) and its dependents are
  cancelled. Writes `failed` { message, failureReason, willRetry, deadLetterJobId }, and adds the
  attempts to the minute's throughput counter (includes/throughput.lua). The client bounds the
  failures per call (Backend.maxFailuresPerCall).
  KEYS[1] id, KEYS[2] jobs, KEYS[3] payloads, KEYS[4] idem, KEYS[5] all,
  KEYS[6] status:pending, KEYS[7] status:processing, KEYS[8] status:completed,
  KEYS[9] status:failed, KEYS[10] status:cancelled, KEYS[11] status:waiting, KEYS[12] types,
  KEYS[13] tags, KEYS[14] tag-deps, KEYS[15] deps, KEYS[16] ready, KEYS[17] ready-by-type,
  KEYS[18] claim-hints, KEYS[19] scheduled, KEYS[20] processing, KEYS[21] finished,
  KEYS[22] groups, KEYS[23] event:id, KEYS[24] events, KEYS[25] job-events,
  KEYS[26] event-times, KEYS[27] wake, KEYS[28] token-waiters, KEYS[29] meta, KEYS[30] blocked,
  KEYS[31] parked, KEYS[32] run-at, KEYS[33] throughput
  ARGV[1] now (ms); ARGV[2] now as an ISO-8601 string; ARGV[3] JSON array of { id, workerId,
  message, reason, retryAt?, stack? } (retryAt in ms, absent when no retry follows; stack
  bounded, absent for none).
  ARGV[4] the store id the queue expects (includes/store.lua): a different or missing one
  raises a QUEUEDEV_STORE_RESET error before anything is written.
  Returns one entry per failure, in order: 0 when the job was no longer its worker's, else
  { deadLetterJobId or 0, cascaded } (cascaded: array of { jobId, cascadeFrom }).
]]
--- @include "util"
--- @include "job"
--- @include "events"
--- @include "wake"
--- @include "state"
--- @include "fail"
--- @include "store"
--- @include "throughput"

checkStore(ARGV[4])

local now = tonumber(ARGV[1])
local nowIso = ARGV[2]
local results = {}
local recorded = 0
local wake = false
-- The events (each failure's own, and the `processing` event it writes out of the job's
-- metadata) are read by nothing here: they go out as one command per key at the end, with
-- their ids taken by one INCRBY (includes/writes.lua, includes/events.lua).
deferWrites({ K['events'], K['job-events'], K['event-times'] })
for i, f in ipairs(cjson.decode(ARGV[3])) do
  local job = loadJob(f.id)
  if not job or job.status ~= 'processing' or job.lockedBy ~= f.workerId then
    results[i] = 0
  else
    local retryAt = not isnull(f.retryAt) and f.retryAt or nil
    local stack = not isnull(f.stack) and f.stack or nil
    local cascaded = {}
    local deadLetterId = failProcessingJob(job, f.message, f.reason, retryAt, now, nowIso, cascaded, stack)
    recorded = recorded + 1
    -- A freed group slot, a new dead-letter job or a retry due at once may let a processor (this
    -- one too) run something now.
    if deadLetterId or not isnull(job.groupId) or (retryAt and retryAt <= now) then wake = true end
    results[i] = { deadLetterId or 0, cascaded }
  end
end
flushWrites()
countAttempts('failed', recorded, now)
-- So may a released parked job.
if wake or releasedAny() then signalWake() end
return results
