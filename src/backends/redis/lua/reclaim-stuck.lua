--[[
  Reclaims processing jobs whose lock is older than the threshold, or than their own longer
  timeoutMs (SPEC §3): with attempts left back to pending, else failed with reason `timeout`,
  an errorHistory entry, dead-letter routing and the dependency cascade. Each gets a `failed`
  event { message, failureReason: 'timeout', willRetry, deadLetterJobId }.
  KEYS[1] id, KEYS[2] jobs, KEYS[3] payloads, KEYS[4] idem, KEYS[5] all,
  KEYS[6] status:pending, KEYS[7] status:processing, KEYS[8] status:completed,
  KEYS[9] status:failed, KEYS[10] status:cancelled, KEYS[11] status:waiting, KEYS[12] types,
  KEYS[13] tags, KEYS[14] tag-deps, KEYS[15] deps, KEYS[16] ready, KEYS[17] ready-by-type,
  KEYS[18] claim-hints, KEYS[19] scheduled, KEYS[20] processing, KEYS[21] finished,
  KEYS[22] groups, KEYS[23] event:id, KEYS[24] events, KEYS[25] job-events,
  KEYS[26] event-times, KEYS[27] wake, KEYS[28] token-waiters, KEYS[29] meta, KEYS[30] blocked,
  KEYS[31] parked, KEYS[32] run-at, KEYS[33] throughput
  ARGV[1] now (ms); ARGV[2] threshold (ms); ARGV[3] now as an ISO-8601 string.
  ARGV[4] skip: candidates that earlier calls of this reclaim examined and left processing
  (still within their own timeoutMs); ARGV[5] slice: candidates to examine at most (slices.ts).
  ARGV[6] the store id the queue expects (includes/store.lua): a different or missing one
  raises a QUEUEDEV_STORE_RESET error before anything is written.
  Returns { requeuedIds, failedIds, deadLetterJobIds, cascaded, examined, kept } (cascaded:
  { jobId, cascadeFrom }; examined: candidates read, fewer than the slice when none is left;
  kept: those of them left processing, for the next call's skip).
]]
--- @include "util"
--- @include "job"
--- @include "events"
--- @include "wake"
--- @include "state"
--- @include "fail"
--- @include "store"
--- @include "throughput"

checkStore(ARGV[6])

local now = tonumber(ARGV[1])
local threshold = tonumber(ARGV[2])
local nowIso = ARGV[3]
local requeued, failed, deadLetters, cascaded = {}, {}, {}, {}
local kept = 0

-- Locked before now - threshold (lock times are whole ms, hence ceil): candidates, oldest lock
-- first; the job's own timeoutMs may lengthen its limit. A reclaimed job leaves `processing`,
-- a kept one stays where it was: skipping the kept ones of earlier calls resumes the walk.
local members = redis.call('ZRANGEBYSCORE', K['processing'], '-inf', '(' .. int(math.ceil(now - threshold)),
  'LIMIT', tonumber(ARGV[4]), tonumber(ARGV[5]))
for _, m in ipairs(members) do
  local before = #requeued + #failed
  local job = loadJob(idFromMember(m))
  if job and job.status == 'processing' then
    local limit = threshold
    if not isnull(job.timeoutMs) and job.timeoutMs > limit then limit = job.timeoutMs end
    if job.lockedAt < now - limit then
      local message = 'Reclaimed: still processing after ' .. int(math.floor(limit + 0.5)) .. ' ms, the worker is presumed lost'
      if job.attempts < job.maxAttempts then
        transition(job, 'pending', now)
        store(job, now, 'processing')
        addEvent(job.id, 'failed', now, '{"message":' .. json(message)
          .. ',"failureReason":"timeout","willRetry":true,"deadLetterJobId":null}')
        requeued[#requeued + 1] = job.id
      else
        local dl = failProcessingJob(job, message, 'timeout', nil, now, nowIso, cascaded)
        failed[#failed + 1] = job.id
        if dl then deadLetters[#deadLetters + 1] = dl end
      end
    end
  end
  if #requeued + #failed == before then kept = kept + 1 end
end
-- Every reclaimed job's attempt failed, whether it is requeued or not (its `failed` event).
countAttempts('failed', #requeued + #failed, now)
if #requeued > 0 or #deadLetters > 0 or releasedAny() then signalWake() end
return { requeued, failed, deadLetters, cascaded, #members, kept }
