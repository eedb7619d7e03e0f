--[[
  Hands back jobs a processor claimed ahead and never started: of the given jobs, those still
  processing and locked by the worker go back to pending with pendingReason 'released' (their
  next claim counts no attempt, claim-jobs.lua: the claim that handed them back counted one
  already), their lock cleared, the kept `processing` event written out (includes/state.lua)
  and a `released` event each. A job reclaimed meanwhile (and perhaps claimed by another
  worker) is not touched. Signals the wake-up when any went back.
  KEYS[1] jobs, KEYS[2] status:pending, KEYS[3] status:processing, KEYS[4] status:completed,
  KEYS[5] status:failed, KEYS[6] status:cancelled, KEYS[7] status:waiting, KEYS[8] tags,
  KEYS[9] tag-deps, KEYS[10] deps, KEYS[11] ready, KEYS[12] ready-by-type, KEYS[13] claim-hints,
  KEYS[14] scheduled, KEYS[15] processing, KEYS[16] finished, KEYS[17] groups,
  KEYS[18] event:id, KEYS[19] events, KEYS[20] job-events, KEYS[21] event-times, KEYS[22] wake,
  KEYS[23] meta, KEYS[24] blocked, KEYS[25] parked
  ARGV[1] worker id; ARGV[2] now (ms); ARGV[3..n-1] job ids.
  ARGV[n] the store id the queue expects (includes/store.lua): a different or missing one
  raises a QUEUEDEV_STORE_RESET error before anything is written.
  Returns the ids handed back, in argument order.
]]
--- @include "util"
--- @include "job"
--- @include "events"
--- @include "wake"
--- @include "state"
--- @include "store"

checkStore(ARGV[#ARGV])

local worker = ARGV[1]
local now = tonumber(ARGV[2])
local released = {}
for i = 3, #ARGV - 1 do
  local job = loadJob(tonumber(ARGV[i]))
  if job and job.status == 'processing' and job.lockedBy == worker then
    transition(job, 'pending', now)
    job.pendingReason = 'released'
    store(job, now, 'processing')
    addEvent(job.id, 'released', now, nil)
    released[#released + 1] = job.id
  end
end
if #released > 0 then signalWake() end
return released
