-- Parked jobs (DETAILS "Group limits"; SPEC §4.8): a due job a claim found in a full group
-- (groupConcurrency) or behind a dependsOn.tags barrier leaves `ready` for `parked`, so later
-- claims do not walk it again. It comes back through includes/unpark.lua when its block ends:
-- a group gets back, per slot that frees, its best parked job of each job type (a claim limited
-- to one type takes that type's best); a barrier gives back its jobs once no other active
-- (pending, processing, waiting) job carries its tags. transition() notes those ends here, and
-- store() releases what they unblocked before it returns.
--
-- Members (score 0), best first within each block, as in `ready`:
--   `g\0<group id>\0<jobType>\0<2147483647 - priority, 10 digits>\0<pad id>`
--   `b\0<barrier>\0<2147483647 - priority, 10 digits>\0<pad id>`
-- where <barrier> is the job's dependsOn.tags, each hex-encoded (no separator inside), sorted,
-- joined by \1: the barriers a tag can belong to start with that tag, so the barriers a job
-- held are found from its own tags. Ids, types and groups hold no NUL.

local ACTIVE_LIST = { 'pending', 'processing', 'waiting' }
local ACTIVE_STATUSES = { pending = true, processing = true, waiting = true }

local function hex(s)
  return (string.gsub(s, '.', function(c) return string.format('%02x', string.byte(c)) end))
end

local function unhex(h)
  return (string.gsub(h, '%x%x', function(b) return string.char(tonumber(b, 16)) end))
end

local function barrierOf(tags)
  local encoded = {}
  for i, t in ipairs(tags) do encoded[i] = hex(t) end
  table.sort(encoded)
  return table.concat(encoded, '\1')
end

local function barrierTags(barrier)
  local tags = {}
  for h in string.gmatch(barrier, '[^\1]+') do tags[#tags + 1] = unhex(h) end
  return tags
end

local function bestFirst(job)
  return string.format('%010d', 2147483647 - job.priority) .. '\0' .. pad(job.id)
end

local function groupParkMember(job)
  return 'g\0' .. job.groupId .. '\0' .. job.jobType .. '\0' .. bestFirst(job)
end

local function barrierParkMember(job)
  return 'b\0' .. barrierOf(list(job.dependsOnTags)) .. '\0' .. bestFirst(job)
end

-- Whether anything is parked, asked once per script (a claim that parks sets it).
local anyParked = nil
local function hasParked()
  if anyParked == nil then anyParked = redis.call('ZCARD', K['parked']) > 0 end
  return anyParked
end

-- Parks a due job taken out of `ready`: `why` is 'group' or 'barrier'.
local function park(job, why)
  anyParked = true
  local m = why == 'group' and groupParkMember(job) or barrierParkMember(job)
  redis.call('ZADD', K['parked'], 0, m)
end

-- Takes the job out of `parked`, wherever its group or barrier put it.
local function unpark(job)
  if not isnull(job.groupId) then redis.call('ZREM', K['parked'], groupParkMember(job)) end
  if #list(job.dependsOnTags) > 0 then redis.call('ZREM', K['parked'], barrierParkMember(job)) end
end

-- Blocks this script ended, for store() to release: a group slot per entry of `groups`, and
-- the tags (a list per job) of jobs that stopped being active or lost tags.
local ended = { groups = {}, tags = {} }
-- Jobs this script moved out of the active statuses: their status sets may still be written
-- late (includes/writes.lua), so the barrier check skips them by id.
local leftActive = {}

local function noteTransition(job, old, status)
  if old == 'processing' and status ~= 'processing' and not isnull(job.groupId) then
    ended.groups[#ended.groups + 1] = job.groupId
  end
  if ACTIVE_STATUSES[old] and not ACTIVE_STATUSES[status] then
    leftActive[job.id] = true
    if #list(job.tags) > 0 then ended.tags[#ended.tags + 1] = list(job.tags) end
  elseif ACTIVE_STATUSES[status] then
    leftActive[job.id] = nil
  end
end

-- An active job whose tags change (edit) may stop holding barriers of its old tags.
local function noteTagsLeft(oldTags)
  if #oldTags > 0 then ended.tags[#ended.tags + 1] = oldTags end
end

-- Up to two active jobs carrying every tag of `needed` (enough to tell whether one other than
-- an asking job exists), not counting jobs this script moved out of the active statuses.
-- Scans the index entries of the rarest needed tag.
local function barrierHolders(needed)
  local rarest, fewest = nil, nil
  for _, t in ipairs(needed) do
    local n = redis.call('ZLEXCOUNT', K['tags'], '[' .. t .. '\0', '(' .. t .. '\1')
    if fewest == nil or n < fewest then rarest, fewest = t, n end
  end
  local holders = {}
  for _, m in ipairs(redis.call('ZRANGEBYLEX', K['tags'], '[' .. rarest .. '\0', '(' .. rarest .. '\1')) do
    local id = idFromMember(m)
    local sid = int(id)
    local active = false
    if not leftActive[id] then
      for _, status in ipairs(ACTIVE_LIST) do
        if redis.call('ZSCORE', K['status:' .. status], sid) then active = true break end
      end
    end
    if active then
      local other = loadJob(id)
      local have = {}
      for _, t in ipairs(list(other and other.tags)) do have[t] = true end
      local all = other ~= nil
      for _, t in ipairs(needed) do
        if not have[t] then all = false break end
      end
      if all then
        holders[#holders + 1] = id
        if #holders == 2 then break end
      end
    end
  end
  return holders
end
