--[[
  Stores a processing job's progress (0..100 integer), fenced.
  KEYS[1] jobs
  ARGV[1] job id; ARGV[2] worker id; ARGV[3] progress; ARGV[4] now (ms).
  Returns 1 when stored, 0 when the job was no longer this worker's.
]]
--- @include "util"
--- @include "job"

local job = loadJob(tonumber(ARGV[1]))
if not job or job.status ~= 'processing' or job.lockedBy ~= ARGV[2] then return 0 end
job.progress = tonumber(ARGV[3])
job.updatedAt = tonumber(ARGV[4])
saveJob(job)
return 1
