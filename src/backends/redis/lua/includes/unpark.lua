-- Parking and releasing (includes/parked.lua): a claim sets blocked jobs aside, and the end of
-- a block puts back, in the same script, what may now run. Uses markReady (includes/state.lua).

local releasedSome = false

-- True when this script put a parked job back in `ready` (the caller signals a wake-up).
local function releasedAny()
  return releasedSome
end

-- Takes the parked member `m` out and makes its job claimable again; true when it is ready
-- (a job kept back by a prerequisite goes to `blocked` instead).
local function releaseMember(m)
  redis.call('ZREM', K['parked'], m)
  local job = loadJob(idFromMember(m))
  if job and dueAt(job) ~= nil and markReady(job) then
    releasedSome = true
    return true
  end
  return false
end

-- One slot of `group` may have freed: the best parked job of each job type goes back to
-- `ready` (a claim of any type takes the best of them, a claim limited to some types the best
-- of its types); the claim parks again those that find the group full. Costs a range read per
-- parked job type of the group, plus the released jobs.
local function releaseGroupSlot(group)
  if not hasParked() then return end
  local base = 'g\0' .. group .. '\0'
  local from, to = '[' .. base, '(g\0' .. group .. '\1'
  while true do
    local best = redis.call('ZRANGEBYLEX', K['parked'], from, to, 'LIMIT', 0, 1)[1]
    if not best then return end
    local jobType = string.sub(best, #base + 1, string.find(best, '\0', #base + 1, true) - 1)
    while best and not releaseMember(best) do
      best = redis.call('ZRANGEBYLEX', K['parked'], '[' .. base .. jobType .. '\0', '(' .. base .. jobType .. '\1',
        'LIMIT', 0, 1)[1]
    end
    from = '[' .. base .. jobType .. '\1'
  end
end

-- A barrier that ended puts back at most RELEASE_LIMIT jobs per script, best first. When more
-- are parked behind it, it stays open (member `o\0<barrier>` of `parked`) and claims that fall
-- short put back the rest, a slice at a time (releaseOpenBarriers): no script holds the server
-- long however many jobs waited on one barrier.
local RELEASE_LIMIT = 250

-- Puts back up to `limit` jobs parked behind `barrier`, leaving it open when some remain.
-- Returns how many it took out of `parked`.
local function releaseSlice(barrier, limit)
  local members = redis.call('ZRANGEBYLEX', K['parked'], '[b\0' .. barrier .. '\0', '(b\0' .. barrier .. '\1',
    'LIMIT', 0, limit + 1)
  local taken = math.min(limit, #members)
  for i = 1, taken do releaseMember(members[i]) end
  if #members > limit then
    redis.call('ZADD', K['parked'], 0, 'o\0' .. barrier)
  else
    redis.call('ZREM', K['parked'], 'o\0' .. barrier)
  end
  return taken
end

-- The jobs parked behind `barrier` (its tags: `needed`) go back once no active job carries
-- those tags, or only one does and it is itself parked there (no one else holds it back).
local function releaseBarrier(barrier, needed)
  local holders = barrierHolders(needed)
  if #holders == 0 then
    releaseSlice(barrier, RELEASE_LIMIT)
  elseif #holders == 1 then
    local job = loadJob(holders[1])
    if job and #list(job.dependsOnTags) > 0 and barrierOf(list(job.dependsOnTags)) == barrier then
      local m = barrierParkMember(job)
      if redis.call('ZSCORE', K['parked'], m) then releaseMember(m) end
    end
  end
end

-- A job carrying `tags` stopped holding barriers (it left the active statuses, or its tags
-- changed): every barrier of parked jobs made of these tags only is checked. A barrier is
-- found from its first tag, one range read per barrier starting with one of `tags`.
local function releaseBarriers(tags)
  if not hasParked() then return end
  local have = {}
  for _, t in ipairs(tags) do have[t] = true end
  for _, t in ipairs(tags) do
    local h = hex(t)
    local from, to = '[b\0' .. h .. '\0', '(b\0' .. h .. '\2'
    while true do
      local first = redis.call('ZRANGEBYLEX', K['parked'], from, to, 'LIMIT', 0, 1)[1]
      if not first then break end
      local barrier = string.sub(first, 3, string.find(first, '\0', 3, true) - 1)
      local needed = barrierTags(barrier)
      local covered = true
      for _, n in ipairs(needed) do
        if not have[n] then covered = false break end
      end
      if covered then releaseBarrier(barrier, needed) end
      from = '[b\0' .. barrier .. '\1'
    end
  end
end

-- Continues the barriers left open, for a claim that fell short: up to `limit` jobs go back. A
-- barrier held again meanwhile closes (its new holder's end checks it again). Returns the jobs
-- taken out of `parked`.
local function releaseOpenBarriers(limit)
  local taken = 0
  while taken < limit do
    local marker = redis.call('ZRANGEBYLEX', K['parked'], '[o\0', '(o\1', 'LIMIT', 0, 1)[1]
    if not marker then break end
    local barrier = string.sub(marker, 3)
    local needed = barrierTags(barrier)
    if #barrierHolders(needed) == 0 then
      taken = taken + releaseSlice(barrier, limit - taken)
    else
      redis.call('ZREM', K['parked'], marker)
      releaseBarrier(barrier, needed)
    end
  end
  return taken
end

-- Releases what the blocks noted since the last call (noteTransition, noteTagsLeft) held.
local function releaseEnded()
  if #ended.groups == 0 and #ended.tags == 0 then return end
  local groups, tagLists = ended.groups, ended.tags
  ended.groups, ended.tags = {}, {}
  for _, group in ipairs(groups) do releaseGroupSlot(group) end
  for _, tags in ipairs(tagLists) do releaseBarriers(tags) end
end

-- A job of a group left `ready` for somewhere else than processing (cancelled, edited to later,
-- set aside by a claim): jobs parked in its group may have counted on it to free a slot, so it
-- gives one back as a freed slot would. Parked jobs of a group thus always have a job of that
-- group processing or ready ahead of them.
local function leftGroupLane(job)
  if not isnull(job.groupId) then releaseGroupSlot(job.groupId) end
end

-- A claim found this due job (taken from `ready`) blocked: `why` is 'group' (its group is full),
-- 'barrier' (another active job carries its dependsOn.tags) or 'prerequisites' (to `blocked`).
local function setAside(job, why)
  unplace(job, 'ready')
  if why == 'prerequisites' then
    block(job)
  else
    park(job, why)
  end
  if why ~= 'group' then leftGroupLane(job) end
end
