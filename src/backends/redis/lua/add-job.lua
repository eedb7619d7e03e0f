--[[
  Adds one job that has none of the options needing more than the writes every job makes
  (SPEC §4.1): no idempotency key, dependencies, tags or group. It makes the same writes as
  add-jobs.lua for such a job (includes/new-job.lua, includes/places.lua), with only the
  keys they touch and nothing to decode: the client encodes the stored metadata once.
  KEYS[1] id, KEYS[2] jobs, KEYS[3] payloads, KEYS[4] all, KEYS[5] status:pending,
  KEYS[6] types, KEYS[7] run-at, KEYS[8] ready, KEYS[9] ready-by-type, KEYS[10] scheduled,
  KEYS[11] event:id, KEYS[12] events, KEYS[13] job-events, KEYS[14] event-times,
  KEYS[15] wake, KEYS[16] meta
  ARGV[1] now (ms); ARGV[2] the stored metadata JSON text without id (record.ts
  toStoredJobText); ARGV[3] the payload's JSON text; ARGV[4] jobType; ARGV[5] priority;
  ARGV[6] runAt (ms).
  ARGV[7] the store id the queue expects (includes/store.lua): a different or missing one
  raises a QUEUEDEV_STORE_RESET error before anything is written.
  Without tags or key, the `added` event's metadata is the default: the event is kept in the
  job's metadata (includes/new-job.lua).
  Returns the new job's id.
]]
--- @include "util"
--- @include "job"
--- @include "new-job"
--- @include "places"
--- @include "wake"
--- @include "store"

checkStore(ARGV[7])

local now = tonumber(ARGV[1])
local job = { id = newId(), jobType = ARGV[4], priority = tonumber(ARGV[5]), runAt = tonumber(ARGV[6]) }
local sid = int(job.id)
writeNewJob(job, ARGV[3], now, '')
-- Where store() (includes/state.lua) puts a new pending job without prerequisites.
if job.runAt <= now then
  enterReady(job)
else
  enterScheduled(job, job.runAt)
end
saveJob(job, withId(job, ARGV[2]))
signalWake()
return job.id
