--[[
  Deletes one finished job (completed, cancelled, failed with no retry left) as cleanupOldJobs
  removes one (includes/remove.lua): the job with every index entry, payload, output, step
  data, idempotency key and event. Any other status leaves the job as it is.
  KEYS[1] jobs, KEYS[2] payloads, KEYS[3] outputs, KEYS[4] steps, KEYS[5] idem, KEYS[6] all,
  KEYS[7] status:pending, KEYS[8] status:processing, KEYS[9] status:completed,
  KEYS[10] status:failed, KEYS[11] status:cancelled, KEYS[12] status:waiting, KEYS[13] types,
  KEYS[14] tags, KEYS[15] tag-deps, KEYS[16] deps, KEYS[17] ready, KEYS[18] ready-by-type,
  KEYS[19] claim-hints, KEYS[20] scheduled, KEYS[21] processing, KEYS[22] finished,
  KEYS[23] events, KEYS[24] job-events, KEYS[25] event-times, KEYS[26] step-names,
  KEYS[27] blocked, KEYS[28] groups, KEYS[29] parked, KEYS[30] run-at, KEYS[31] event:id
  ARGV[1] job id.
  Returns { deleted (1 or 0), status as found ('' when there is no such job), 1 when it is a
  failed job with a retry due (else 0) }.
]]
--- @include "util"
--- @include "job"
--- @include "steps"
--- @include "state"
--- @include "release"
--- @include "run-at"
--- @include "remove"

local job = loadJob(tonumber(ARGV[1]))
if not job then return { 0, '', 0 } end
local retryDue = (job.status == 'failed' and not isnull(job.nextAttemptAt)) and 1 or 0
if not isFinished(job) then return { 0, job.status, retryDue } end
deferWrites(removalDeferredKeys())
removeJob(job)
flushWrites()
return { 1, job.status, 0 }
