-- Status changes and index placement. Every script that changes a job's status calls
-- transition() and then store(), so the status sets, the ready/blocked/scheduled/processing/
-- finished sets (and ready-by-type), `parked` and the group counters always agree with the
-- metadata, and the jobs parked behind a block that ended come back (includes/unpark.lua).
--- @include "writes"
--- @include "events"
--- @include "parked"
--- @include "places"
local PLACEMENTS = { 'ready', 'blocked', 'scheduled', 'processing', 'finished' }

-- Where a caller knows the job sits before store(): 'new' (a job being inserted: nowhere),
-- 'ready' (taken from `ready` or `ready-by-type` by a claim: both), 'claimed' (the same, but
-- the claim removes those entries itself, for its whole batch at once), 'processing' (checked
-- processing). Without it, store() clears every placement.
local KNOWN_PLACES = { new = {}, ready = { 'ready' }, claimed = {}, processing = { 'processing' } }

-- When a claimable job becomes due: pending at runAt, a failed job at its retry time, a
-- waiting job at its wake-up time. nil when the job cannot be claimed.
local function dueAt(job)
  local s = job.status
  if s == 'pending' then return job.runAt end
  if s == 'failed' and not isnull(job.nextAttemptAt) then return job.nextAttemptAt end
  if s == 'waiting' and not isnull(job.waitUntil) then return job.waitUntil end
  return nil
end

local function isFinished(job)
  return job.status == 'completed' or job.status == 'cancelled'
    or (job.status == 'failed' and isnull(job.nextAttemptAt))
end

-- Moves the job to `status`: status sets and the per-group processing counter. A group slot
-- freed, or a job that stopped being active, is noted for store() to release parked jobs. A
-- job leaving processing loses its lock (lockedAt, lockedBy): only a processing job is locked.
-- Unless it completed, it also writes out the `processing` event its metadata kept
-- (includes/events.lua).
local function transition(job, status, now)
  local old = job.status
  if old == 'processing' and status ~= 'processing' then
    job.lockedAt = nil
    job.lockedBy = nil
    if status ~= 'completed' then releaseProcessingEvent(job) end
  end
  if old ~= status then
    local id = int(job.id)
    remove(K['status:' .. old], id)
    write('ZADD', K['status:' .. status], job.id, id)
    local group = job.groupId
    if not isnull(group) then
      if old == 'processing' then
        if redis.call('HINCRBY', K['groups'], group, -1) <= 0 then redis.call('HDEL', K['groups'], group) end
      elseif status == 'processing' then
        redis.call('HINCRBY', K['groups'], group, 1)
      end
    end
    noteTransition(job, old, status)
  end
  job.status = status
  job.updatedAt = now
end

-- Takes the job out of ready/blocked/scheduled/processing/finished, ready-by-type and
-- `parked`, or out of the one place `from` names (KNOWN_PLACES). The typed and parked members
-- hold the priority: call this before changing a job's priority. Without `from`, returns true
-- when the job was in `ready`.
-- Only the known place's removal may be deferred (remove()): a script defers the places it
-- writes to, which the clearing of every place would also touch.
local function unplace(job, from)
  local m = pad(job.id)
  local wasReady = false
  if from then
    for _, name in ipairs(KNOWN_PLACES[from]) do remove(K[name], m) end
  else
    for _, name in ipairs(PLACEMENTS) do
      if redis.call('ZREM', K[name], m) == 1 and name == 'ready' then wasReady = true end
    end
    unpark(job)
  end
  if not from or from == 'ready' then redis.call('ZREM', K['ready-by-type'], typedReadyMember(job)) end
  return wasReady
end

-- True when every dependsOn.jobIds job is completed; a removed one (cleaned up) counts as
-- completed. Costs two reads per prerequisite of this job only.
local function prerequisitesMet(job)
  for _, dep in ipairs(list(job.dependsOnJobIds)) do
    local sid = int(dep)
    if not redis.call('ZSCORE', K['status:completed'], sid) and redis.call('HEXISTS', K['jobs'], sid) == 1 then
      return false
    end
  end
  return true
end

-- Holds a due job whose prerequisites are not all completed in `blocked`, out of the claim's
-- way: it returns to `ready` through releaseDependents (includes/release.lua) when one of
-- them completes or is removed.
local function block(job)
  write('ZADD', K['blocked'], job.id, pad(job.id))
end

-- Makes a due job claimable: `ready` (all types) and `ready-by-type` (claims filtered by type),
-- or `blocked` while a prerequisite is not completed. Returns true when the job is ready.
local function markReady(job)
  if not prerequisitesMet(job) then
    block(job)
    return false
  end
  enterReady(job)
  return true
end

--- @include "unpark"

-- Puts the job in exactly one of ready/blocked/scheduled/processing/finished (or none: a waiting job
-- without a wake-up time) and saves its metadata, then releases the parked jobs whose block
-- ended (includes/unpark.lua). `from`: where the job was, when the caller knows (KNOWN_PLACES).
-- Returns the saved JSON text, and true when the job is now processing or ready (in its
-- group's lane, includes/unpark.lua). `text`: the metadata's JSON text when the caller has it
-- already (saveJob).
local function store(job, now, from, text)
  local m = pad(job.id)
  local wasReady = unplace(job, from)
  local s = job.status
  local due = dueAt(job)
  local inLane = false
  if s == 'processing' then
    write('ZADD', K['processing'], job.lockedAt, m)
    inLane = true
  elseif isFinished(job) then
    write('ZADD', K['finished'], job.updatedAt, m)
  elseif due ~= nil then
    if due <= now then
      inLane = markReady(job)
    else
      enterScheduled(job, due)
    end
  end
  text = saveJob(job, text)
  if wasReady and not inLane then leftGroupLane(job) end
  releaseEnded()
  return text, inLane
end
