--[[
  Removes up to a batch of finished jobs (completed, cancelled, failed with no retry left)
  last updated before a time, with every index entry, payload, output, step data,
  idempotency key and event (SPEC §4.3, DETAILS "Retries, failures, reclaim"). Dependents
  held in `blocked` by a removed job are released (includes/release.lua).
  KEYS[1] jobs, KEYS[2] payloads, KEYS[3] outputs, KEYS[4] steps, KEYS[5] idem, KEYS[6] all,
  KEYS[7] status:pending, KEYS[8] status:processing, KEYS[9] status:completed,
  KEYS[10] status:failed, KEYS[11] status:cancelled, KEYS[12] status:waiting, KEYS[13] types,
  KEYS[14] tags, KEYS[15] tag-deps, KEYS[16] deps, KEYS[17] ready, KEYS[18] ready-by-type,
  KEYS[19] claim-hints, KEYS[20] scheduled, KEYS[21] processing, KEYS[22] finished,
  KEYS[23] events, KEYS[24] job-events, KEYS[25] event-times, KEYS[26] step-names,
  KEYS[27] blocked, KEYS[28] groups, KEYS[29] parked, KEYS[30] run-at
  ARGV[1] olderThan (ms, exclusive); ARGV[2] batch size.
  Returns { removed, scanned }: jobs removed, and finished entries examined (fewer than the
  batch size: nothing older is left).
]]
--- @include "util"
--- @include "job"
--- @include "steps"
--- @include "state"
--- @include "release"
--- @include "run-at"

local STATUSES = { 'pending', 'processing', 'completed', 'failed', 'cancelled', 'waiting' }
local members = redis.call('ZRANGEBYSCORE', K['finished'], '-inf', '(' .. ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))

local function removeEvents(pid)
  local min, max = '[' .. pid .. '\0', '(' .. pid .. '\1'
  local eventIds = {}
  for i, m in ipairs(redis.call('ZRANGEBYLEX', K['job-events'], min, max)) do eventIds[i] = int(idFromMember(m)) end
  if #eventIds == 0 then return end
  redis.call('HDEL', K['events'], unpack(eventIds))
  redis.call('ZREM', K['event-times'], unpack(eventIds))
  redis.call('ZREMRANGEBYLEX', K['job-events'], min, max)
end

local removed = 0
for _, m in ipairs(members) do
  local id = tonumber(m)
  local sid, pid = int(id), pad(id)
  local job = loadJob(id)
  if job then
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
    for _, s in ipairs(STATUSES) do redis.call('ZREM', K['status:' .. s], sid) end
    redis.call('ZREM', K['types'], job.jobType .. '\0' .. pid)
    for _, tag in ipairs(list(job.tags)) do redis.call('ZREM', K['tags'], tag .. '\0' .. pid) end
    for _, tag in ipairs(list(job.dependsOnTags)) do redis.call('ZREM', K['tag-deps'], tag .. '\0' .. pid) end
    for _, dep in ipairs(list(job.dependsOnJobIds)) do redis.call('ZREM', K['deps'], pad(dep) .. '\0' .. pid) end
    -- Its dependents lose the link; a missing prerequisite counts as met (it had completed:
    -- had it been cancelled or failed, the dependents were cancelled with it, unless added
    -- after it ended, and those held in `blocked` are released now).
    releaseDependents(id)
    redis.call('ZREMRANGEBYLEX', K['deps'], '[' .. pid .. '\0', '(' .. pid .. '\1')
    redis.call('ZREM', K['ready'], pid)
    redis.call('ZREM', K['ready-by-type'], typedReadyMember(job))
    redis.call('ZREM', K['blocked'], pid)
    redis.call('ZREM', K['scheduled'], pid)
    redis.call('ZREM', K['processing'], pid)
    removeEvents(pid)
    removed = removed + 1
  end
  redis.call('ZREM', K['finished'], m)
end
return { removed, #members }
