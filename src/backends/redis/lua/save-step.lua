--[[
  Stores one durable step result of a processing job, fenced (DETAILS "Handler context",
  `ctx.run`): merged into the job's step data by writing only that step's field, the value's
  JSON text stored verbatim (includes/steps.lua).
  KEYS[1] jobs, KEYS[2] steps, KEYS[3] step-names
  ARGV[1] job id; ARGV[2] worker id; ARGV[3] step name; ARGV[4] the value's JSON text;
  ARGV[5] now (ms).
  Returns 1 when stored, 0 when the job was no longer this worker's.
]]
--- @include "util"
--- @include "job"
--- @include "steps"

local job = loadJob(tonumber(ARGV[1]))
if not job or job.status ~= 'processing' or job.lockedBy ~= ARGV[2] then return 0 end
job.updatedAt = tonumber(ARGV[5])
saveJob(job)
saveStepValue(job.id, ARGV[3], ARGV[4])
return 1
