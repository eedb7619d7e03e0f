--[[
  Stores a processing job's output (JSON text, verbatim), fenced. Last call wins.
  KEYS[1] jobs, KEYS[2] outputs
  ARGV[1] job id; ARGV[2] worker id; ARGV[3] output JSON text; ARGV[4] now (ms).
  Returns 1 when stored, 0 when the job was no longer this worker's.
]]
--- @include "util"
--- @include "job"

local job = loadJob(tonumber(ARGV[1]))
if not job or job.status ~= 'processing' or job.lockedBy ~= ARGV[2] then return 0 end
job.updatedAt = tonumber(ARGV[4])
saveJob(job)
redis.call('HSET', K['outputs'], int(job.id), ARGV[3])
return 1
