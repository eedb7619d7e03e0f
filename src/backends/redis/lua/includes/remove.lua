-- Removing a finished job for good (cleanupOldJobs, deleteJob): the job with every index
-- entry, payload, output, step data, idempotency key and event. Its dependents lose the link: a
-- missing prerequisite counts as met (it had completed: had it been cancelled or failed, the
-- dependents were cancelled with it), and those held in `blocked` are released
-- (includes/release.lua). Needs includes util, job, steps, state, release and run-at.

local REMOVE_STATUSES = { 'pending', 'processing', 'completed', 'failed', 'cancelled', 'waiting' }

local function removeEvents(pid)
  local min, max = '[' .. pid .. '\0', '(' .. pid .. '\1'
  local eventIds = {}
  for i, m in ipairs(redis.call('ZRANGEBYLEX', K['job-events'], min, max)) do eventIds[i] = int(idFromMember(m)) end
  if #eventIds == 0 then return end
  redis.call('HDEL', K['events'], unpack(eventIds))
  redis.call('ZREM', K['event-times'], unpack(eventIds))
  redis.call('ZREMRANGEBYLEX', K['job-events'], min, max)
end

-- `job` as loadJob returned it.
local function removeJob(job)
  local id = job.id
  local sid, pid = int(id), pad(id)
  redis.call('HDEL', K['jobs'], sid)
  redis.call('HDEL', K['payloads'], sid)
  redis.call('HDEL', K['outputs'], sid)
  clearSteps(id)
  redis.call('HDEL', K['claim-hints'], sid)
  if not isnull(job.idempotencyKey) and redis.call('HGET', K['idem'], job.idempotencyKey) == sid then
    redis.call('HDEL', K['idem'], job.idempotencyKey)
  end
  redis.call('ZREM', K['all'], sid)
  unindexRunAt(id)
  for _, s in ipairs(REMOVE_STATUSES) do redis.call('ZREM', K['status:' .. s], sid) end
  redis.call('ZREM', K['types'], job.jobType .. '\0' .. pid)
  for _, tag in ipairs(list(job.tags)) do redis.call('ZREM', K['tags'], tag .. '\0' .. pid) end
  for _, tag in ipairs(list(job.dependsOnTags)) do redis.call('ZREM', K['tag-deps'], tag .. '\0' .. pid) end
  for _, dep in ipairs(list(job.dependsOnJobIds)) do redis.call('ZREM', K['deps'], pad(dep) .. '\0' .. pid) end
  releaseDependents(id)
  redis.call('ZREMRANGEBYLEX', K['deps'], '[' .. pid .. '\0', '(' .. pid .. '\1')
  redis.call('ZREM', K['ready'], pid)
  redis.call('ZREM', K['ready-by-type'], typedReadyMember(job))
  redis.call('ZREM', K['blocked'], pid)
  redis.call('ZREM', K['scheduled'], pid)
  redis.call('ZREM', K['processing'], pid)
  redis.call('ZREM', K['finished'], pid)
  removeEvents(pid)
end
