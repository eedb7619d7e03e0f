--[[
  Enqueues due cron slots, all in this one script (SPEC §4.4; DETAILS "Cron schedule record").
  Per slot: compare-and-set the schedule's nextRunAt from the expected value to the next one,
  only while it is active; the winner then enqueues the slot's job unless overlap is refused
  (allowOverlap false) and the schedule's last job is still active: pending, processing,
  waiting, or failed with a retry due. An enqueued job is inserted as add-jobs inserts one
  (every index, `added` event, wake-up), and becomes the schedule's lastJobId/lastEnqueuedAt.
  Schedule jobs carry no dependencies; a taken idempotency key resolves to the existing job.
  A triggered run (triggerCronJob) has a null expectedNextRunAt and nextRunAt: no
  compare-and-set and no status check, nextRunAt kept; the overlap rule applies as above, and
  a triggered run it refuses writes nothing.
  KEYS[1] id, KEYS[2] jobs, KEYS[3] payloads, KEYS[4] idem, KEYS[5] all,
  KEYS[6] status:pending, KEYS[7] status:processing, KEYS[8] status:completed,
  KEYS[9] status:failed, KEYS[10] status:cancelled, KEYS[11] status:waiting, KEYS[12] types,
  KEYS[13] tags, KEYS[14] tag-deps, KEYS[15] deps, KEYS[16] ready, KEYS[17] ready-by-type,
  KEYS[18] claim-hints, KEYS[19] scheduled, KEYS[20] processing, KEYS[21] finished,
  KEYS[22] groups, KEYS[23] event:id, KEYS[24] events, KEYS[25] job-events,
  KEYS[26] event-times, KEYS[27] wake, KEYS[28] cron, KEYS[29] cron-due, KEYS[30] meta,
  KEYS[31] blocked, KEYS[32] parked, KEYS[33] run-at
  ARGV[1] now (ms); ARGV[2] JSON array of { scheduleId, expectedNextRunAt, nextRunAt (ms),
  job, payload, added }: job is the stored job metadata without id, payload its JSON text,
  added the `added` event's metadata JSON text.
  ARGV[3] the store id the queue expects (includes/store.lua): a different or missing one
  raises a QUEUEDEV_STORE_RESET error before anything is written.
  Returns one job id per slot, in order: 0 when the slot was lost to another caller (CAS),
  skipped for overlap, or its schedule is gone.
]]
--- @include "util"
--- @include "job"
--- @include "events"
--- @include "wake"
--- @include "state"
--- @include "insert"
--- @include "cron"
--- @include "store"

checkStore(ARGV[3])

local now = tonumber(ARGV[1])

-- True while the schedule's last job may still run: it would overlap a new one.
local function stillActive(jobId)
  if isnull(jobId) then return false end
  local job = loadJob(jobId)
  if not job then return false end
  local s = job.status
  return s == 'pending' or s == 'processing' or s == 'waiting' or (s == 'failed' and not isnull(job.nextAttemptAt))
end

local results = {}
local inserted = false
for i, slot in ipairs(cjson.decode(ARGV[2])) do
  results[i] = 0
  local s = loadSchedule(slot.scheduleId)
  local triggered = isnull(slot.expectedNextRunAt)
  local won = s and (triggered or (s.status == 'active' and s.nextRunAt == slot.expectedNextRunAt))
  local free = won and (s.allowOverlap or not stillActive(s.lastJobId))
  -- A triggered run refused for overlap writes nothing; a due slot is spent either way.
  if won and (free or not triggered) then
    if not triggered then s.nextRunAt = slot.nextRunAt end
    s.updatedAt = now
    if free then
      local job = slot.job
      local key = job.idempotencyKey
      local existing = not isnull(key) and redis.call('HGET', K['idem'], key)
      if existing then
        results[i] = tonumber(existing)
      else
        job.id = newId()
        insertJob(job, slot.payload, now, slot.added)
        results[i] = job.id
        inserted = true
      end
      s.lastJobId = results[i]
      s.lastEnqueuedAt = now
    end
    saveSchedule(s)
  end
end
if inserted then signalWake() end
return results
