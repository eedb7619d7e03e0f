--[[
  Moves a processing job's deadline, fenced (SPEC §4.6; DETAILS "Handler context"): refreshes
  lockedAt (also the reclaim heartbeat) and writes `prolonged` { timeoutMs }.
  KEYS[1] jobs, KEYS[2] processing, KEYS[3] event:id, KEYS[4] events, KEYS[5] job-events,
  KEYS[6] event-times
  ARGV[1] job id; ARGV[2] worker id; ARGV[3] the new timeoutMs, or '' for none (a heartbeat
  only); ARGV[4] now (ms).
  Returns 1 when recorded, 0 when the job was no longer this worker's.
]]
--- @include "util"
--- @include "job"
--- @include "events"

local job = loadJob(tonumber(ARGV[1]))
if not job or job.status ~= 'processing' or job.lockedBy ~= ARGV[2] then return 0 end
local now = tonumber(ARGV[4])
job.lockedAt = now
job.updatedAt = now
saveJob(job)
redis.call('ZADD', K['processing'], now, pad(job.id))
local timeoutMs = ARGV[3] ~= '' and int(tonumber(ARGV[3])) or 'null'
addEvent(job.id, 'prolonged', now, '{"timeoutMs":' .. timeoutMs .. '}')
return 1
