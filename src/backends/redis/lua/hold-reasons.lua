--[[
  Why each of the given jobs, when pending, is not claimed yet (the dashboard's run-at column).
  Read only. For a page of jobs: the work is that of the jobs given and their dependsOn.
  KEYS[1] jobs, KEYS[2] tags, KEYS[3] parked, KEYS[4] status:pending,
  KEYS[5] status:processing, KEYS[6] status:completed, KEYS[7] status:failed,
  KEYS[8] status:cancelled, KEYS[9] status:waiting
  ARGV[1] now (ms); ARGV[2..n] job ids.
  Returns one reason per id, in argument order: '' when the job is missing or not pending,
  'scheduled' (runAt after now), 'dependencies' (a dependsOn.jobIds job exists and is not
  completed, or another pending, processing or waiting job carries every dependsOn.tags tag),
  'group' (parked by a claim that found its group at groupConcurrency), else 'due'.
]]
--- @include "util"
--- @include "job"
--- @include "parked"

local now = tonumber(ARGV[1])

-- A dependsOn.jobIds job that exists and is not completed (a cleaned-up one counts as completed).
local function prerequisitePending(job)
  for _, dep in ipairs(list(job.dependsOnJobIds)) do
    local sid = int(dep)
    if not redis.call('ZSCORE', K['status:completed'], sid) and redis.call('HEXISTS', K['jobs'], sid) == 1 then
      return true
    end
  end
  return false
end

-- Another active job carries every tag of the job's dependsOn.tags.
local function behindBarrier(job)
  local needed = list(job.dependsOnTags)
  if #needed == 0 then return false end
  for _, id in ipairs(barrierHolders(needed)) do
    if id ~= job.id then return true end
  end
  return false
end

local function reason(job)
  if not job or job.status ~= 'pending' then return '' end
  if job.runAt > now then return 'scheduled' end
  if prerequisitePending(job) or behindBarrier(job) then return 'dependencies' end
  if not isnull(job.groupId) and redis.call('ZSCORE', K['parked'], groupParkMember(job)) then return 'group' end
  return 'due'
end

local reasons = {}
for i = 2, #ARGV do
  reasons[i - 1] = reason(loadJob(tonumber(ARGV[i])))
end
return reasons
