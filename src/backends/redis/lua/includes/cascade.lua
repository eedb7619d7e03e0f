-- Cancelling, and the dependency cascade (SPEC §3, §4.8): when a job ends cancelled or
-- failed for good, its pending/waiting dependents are cancelled, transitively. Dependents are
-- the jobs listing it in dependsOn.jobIds (`deps`) and the jobs whose dependsOn.tags are all
-- among its tags (`tag-deps`: it is their tag barrier).
--- @include "waiters"

local function isCancellable(job)
  return job ~= nil and (job.status == 'pending' or job.status == 'waiting')
end

local function cancelOne(job, now, metadata)
  dropTokenWaiter(job)
  transition(job, 'cancelled', now)
  job.lastCancelledAt = now
  store(job, now)
  addEvent(job.id, 'cancelled', now, metadata)
end

-- Ids of the jobs that `src` (id and decoded job, possibly nil) holds back.
local function dependentsOf(src, srcJob)
  local ids = {}
  local p = pad(src)
  for _, m in ipairs(redis.call('ZRANGEBYLEX', K['deps'], '[' .. p .. '\0', '(' .. p .. '\1')) do
    ids[#ids + 1] = idFromMember(m)
  end
  local tags = srcJob and list(srcJob.tags) or {}
  if #tags == 0 then return ids end
  local tagSet = {}
  for _, t in ipairs(tags) do tagSet[t] = true end
  local seen = {}
  for _, t in ipairs(tags) do
    for _, m in ipairs(redis.call('ZRANGEBYLEX', K['tag-deps'], '[' .. t .. '\0', '(' .. t .. '\1')) do
      local id = idFromMember(m)
      if id ~= src and not seen[id] then
        seen[id] = true
        local job = loadJob(id)
        if job then
          local all = true
          for _, needed in ipairs(list(job.dependsOnTags)) do
            if not tagSet[needed] then all = false break end
          end
          if all then ids[#ids + 1] = id end
        end
      end
    end
  end
  return ids
end

-- Whether any job depends on another (`deps`) or has a tag barrier (`tag-deps`), read once per
-- call: a store without either spends no range read or decode per cancelled job on a cascade.
local anyDependencies = nil

-- Cancels the pending/waiting dependents of `roots`, transitively. Appends { jobId, cascadeFrom }
-- pairs to `out`.
local function cascadeCancel(roots, now, out)
  if anyDependencies == nil then anyDependencies = redis.call('EXISTS', K['deps'], K['tag-deps']) > 0 end
  if not anyDependencies then return out end
  local queue = {}
  for i, id in ipairs(roots) do queue[i] = id end
  local head = 1
  while head <= #queue do
    local src = queue[head]
    head = head + 1
    for _, id in ipairs(dependentsOf(src, loadJob(src))) do
      local job = loadJob(id)
      if isCancellable(job) then
        cancelOne(job, now, '{"cascadeFrom":' .. int(src) .. '}')
        out[#out + 1] = { id, src }
        queue[#queue + 1] = id
      end
    end
  end
  return out
end
