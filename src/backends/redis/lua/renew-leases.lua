--[[
  Renews the leases of jobs a processor claimed ahead and has not started (its claim-ahead
  buffer): of the given jobs, those still processing and locked by the worker get lockedAt =
  now (and their `processing` score), so the reclaim counts from now. No event: a lease is not
  a change of the job.
  KEYS[1] jobs, KEYS[2] processing
  ARGV[1] worker id; ARGV[2] now (ms); ARGV[3..n] job ids.
  Returns the ids renewed, in argument order.
]]
--- @include "util"
--- @include "job"

local now = tonumber(ARGV[2])
local renewed = {}
for i = 3, #ARGV do
  local job = loadJob(tonumber(ARGV[i]))
  if job and job.status == 'processing' and job.lockedBy == ARGV[1] then
    job.lockedAt = now
    saveJob(job)
    redis.call('ZADD', K['processing'], now, pad(job.id))
    renewed[#renewed + 1] = job.id
  end
end
return renewed
