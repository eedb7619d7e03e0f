-- Releasing dependents: when a job completes or is removed, its dependents held in `blocked`
-- go back through markReady, which puts those whose prerequisites are now all met in `ready`.
-- Costs one range read over this job's dependents, plus a few commands per blocked one.

-- Returns true when at least one dependent became ready.
local function releaseDependents(id)
  local p = pad(id)
  local released = false
  for _, m in ipairs(redis.call('ZRANGEBYLEX', K['deps'], '[' .. p .. '\0', '(' .. p .. '\1')) do
    local member = pad(idFromMember(m))
    if redis.call('ZSCORE', K['blocked'], member) then
      local job = loadJob(idFromMember(m))
      if job then
        redis.call('ZREM', K['blocked'], member)
        if markReady(job) then released = true end
      end
    end
  end
  return released
end
