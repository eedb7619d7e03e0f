-- Removing a finished job for good (cleanupOldJobs, deleteJob): the job with every index
-- entry, payload, output, step data, idempotency key and event. Its dependents lose the link: a
-- missing prerequisite counts as met (it had completed: had it been cancelled or failed, the
-- dependents were cancelled with it), and those held in `blocked` are released
-- (includes/release.lua). Needs includes util, job, steps, state and release.
--
-- A removal runs a fixed number of writes per job, whatever the store holds: a finished job
-- sits in its status set and `finished` only (store(), includes/state.lua), so only a job whose
-- metadata is not finished is taken out of every place. A script removing many jobs defers the
-- keys of removalDeferredKeys (includes/writes.lua), so each of them takes one variadic command
-- per call rather than one per job.

local REMOVE_STATUSES = { 'pending', 'processing', 'completed', 'failed', 'cancelled', 'waiting' }

-- Whether any job has dependents by id (`deps`) or step data (`step-names`), read once per
-- call: without them, a removal reads no range of either.
local removalScope = nil

local function removalHas()
  if not removalScope then
    removalScope = {
      dependents = redis.call('EXISTS', K['deps']) == 1,
      steps = redis.call('EXISTS', K['step-names']) == 1,
    }
  end
  return removalScope
end

-- The keys a removal writes and no removal reads back. The metadata and the status sets are
-- read by the release of dependents (prerequisitesMet), so they are deferred only when no job
-- has dependents.
local function removalDeferredKeys()
  local keys = { K['payloads'], K['outputs'], K['claim-hints'], K['all'], K['run-at'], K['types'], K['tags'],
    K['finished'], K['events'], K['event-times'], K['job-events'] }
  if not removalHas().dependents then
    keys[#keys + 1] = K['jobs']
    for _, s in ipairs(REMOVE_STATUSES) do keys[#keys + 1] = K['status:' .. s] end
  end
  return keys
end

local function removeEvents(pid)
  for _, m in ipairs(redis.call('ZRANGEBYLEX', K['job-events'], '[' .. pid .. '\0', '(' .. pid .. '\1')) do
    local eid = int(idFromMember(m))
    removeField(K['events'], eid)
    remove(K['event-times'], eid)
    remove(K['job-events'], m)
  end
end

-- Takes a job that is not finished out of every place, as unplace() without `from` does.
local function removeFromEveryPlace(job, sid, pid)
  for _, s in ipairs(REMOVE_STATUSES) do remove(K['status:' .. s], sid) end
  for _, name in ipairs({ 'ready', 'blocked', 'scheduled', 'processing', 'finished' }) do remove(K[name], pid) end
  redis.call('ZREM', K['ready-by-type'], typedReadyMember(job))
end

-- `job` as loadJob returned it.
local function removeJob(job)
  local id = job.id
  local sid, pid = int(id), pad(id)
  local has = removalHas()
  removeField(K['jobs'], sid)
  removeField(K['payloads'], sid)
  removeField(K['outputs'], sid)
  if has.steps then clearSteps(id) end
  removeField(K['claim-hints'], sid)
  if not isnull(job.idempotencyKey) and redis.call('HGET', K['idem'], job.idempotencyKey) == sid then
    redis.call('HDEL', K['idem'], job.idempotencyKey)
  end
  remove(K['all'], sid)
  remove(K['run-at'], sid)
  if isFinished(job) then
    remove(K['status:' .. job.status], sid)
    remove(K['finished'], pid)
  else
    removeFromEveryPlace(job, sid, pid)
  end
  remove(K['types'], job.jobType .. '\0' .. pid)
  if job.tags then
    for _, tag in ipairs(list(job.tags)) do remove(K['tags'], tag .. '\0' .. pid) end
  end
  if job.dependsOnTags then
    for _, tag in ipairs(list(job.dependsOnTags)) do redis.call('ZREM', K['tag-deps'], tag .. '\0' .. pid) end
  end
  if job.dependsOnJobIds then
    for _, dep in ipairs(list(job.dependsOnJobIds)) do redis.call('ZREM', K['deps'], pad(dep) .. '\0' .. pid) end
  end
  if has.dependents then
    releaseDependents(id)
    redis.call('ZREMRANGEBYLEX', K['deps'], '[' .. pid .. '\0', '(' .. pid .. '\1')
  end
  removeEvents(pid)
end
