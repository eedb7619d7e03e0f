--[[
  The processor's lease check: which of the given jobs are still processing and locked by the
  worker. Read-only.
  KEYS[1] jobs
  ARGV[1] worker id; ARGV[2..n] job ids.
  Returns the ids still held, in argument order.
]]
--- @include "util"
--- @include "job"

local held = {}
for i = 2, #ARGV do
  local job = loadJob(tonumber(ARGV[i]))
  if job and job.status == 'processing' and job.lockedBy == ARGV[1] then
    held[#held + 1] = job.id
  end
end
return held
