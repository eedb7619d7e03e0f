--[[
  Records a failed attempt, fenced: only while the job is processing and locked by the given
  worker (SPEC §3, §4.5; DETAILS "Retries, failures, reclaim"). Appends { message, timestamp,
  stack? } to errorHistory, clears the lock and sets failureReason and lastFailedAt. With a retry time the job waits in
  `scheduled` (status failed, nextAttemptAt set); without one it ends failed, is routed to its
  dead-letter type (SPEC §2.5 envelope around the verbatim payload) and its dependents are
  cancelled. Writes `failed` { message, failureReason, willRetry, deadLetterJobId }, and adds the
  attempt to the minute's throughput counter (includes/throughput.lua).
  KEYS[1] id, KEYS[2] jobs, KEYS[3] payloads, KEYS[4] idem, KEYS[5] all,
  KEYS[6] status:pending, KEYS[7] status:processing, KEYS[8] status:completed,
  KEYS[9] status:failed, KEYS[10] status:cancelled, KEYS[11] status:waiting, KEYS[12] types,
  KEYS[13] tags, KEYS[14] tag-deps, KEYS[15] deps, KEYS[16] ready, KEYS[17] ready-by-type,
  KEYS[18] claim-hints, KEYS[19] scheduled, KEYS[20] processing, KEYS[21] finished,
  KEYS[22] groups, KEYS[23] event:id, KEYS[24] events, KEYS[25] job-events,
  KEYS[26] event-times, KEYS[27] wake, KEYS[28] token-waiters, KEYS[29] meta, KEYS[30] blocked,
  KEYS[31] parked, KEYS[32] run-at, KEYS[33] throughput
  ARGV[1] job id; ARGV[2] worker id; ARGV[3] message; ARGV[4] failure reason;
  ARGV[5] retry time (ms), or '' when no retry follows; ARGV[6] now (ms);
  ARGV[7] now as an ISO-8601 string; ARGV[8] the error's stack trace (bounded), or '' for none.
  ARGV[9] the store id the queue expects (includes/store.lua): a different or missing one
  raises a QUEUEDEV_STORE_RESET error before anything is written.
  Returns 0 when the job was no longer this worker's, else { deadLetterJobId or 0, cascaded }
  (cascaded: array of { jobId, cascadeFrom }).
]]
--- @include "util"
--- @include "job"
--- @include "events"
--- @include "wake"
--- @include "state"
--- @include "fail"
--- @include "store"
--- @include "throughput"

checkStore(ARGV[9])

local job = loadJob(tonumber(ARGV[1]))
if not job or job.status ~= 'processing' or job.lockedBy ~= ARGV[2] then return 0 end
local retryAt = ARGV[5] ~= '' and tonumber(ARGV[5]) or nil
local now = tonumber(ARGV[6])
local cascaded = {}
local stack = ARGV[8] ~= '' and ARGV[8] or nil
local deadLetterId = failProcessingJob(job, ARGV[3], ARGV[4], retryAt, now, ARGV[7], cascaded, stack)
countAttempts('failed', 1, now)
-- A freed group slot, a released parked job, a new dead-letter job or a retry due at once may let
-- a processor (this one too) run something now.
if deadLetterId or not isnull(job.groupId) or releasedAny() or (retryAt and retryAt <= now) then signalWake() end
return { deadLetterId or 0, cascaded }
