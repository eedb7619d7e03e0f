--[[
  Claims up to a batch of eligible jobs for a worker (SPEC §3, §4.6, §4.8; DETAILS "Group
  limits"). First moves due entries of `scheduled` to `ready` (at most PROMOTE_LIMIT per call),
  then walks the ready jobs best first (priority desc, then id asc): `ready`, or with a type
  filter `ready-by-type` for just those types, so jobs of other types cost nothing. It takes a
  job when it is really due (pending at runAt, failed at nextAttemptAt, waiting at waitUntil);
  every dependsOn.jobIds job is completed (a cleaned-up one counts as completed); no OTHER
  pending/processing/waiting job carries all its dependsOn.tags; and its group has a free slot
  under groupConcurrency (the `groups` counter: exact across processes, since the script runs
  atomically). A due job found blocked leaves `ready`: for `blocked` when a dependsOn.jobIds
  prerequisite is not completed (released when it completes), for `parked` when its group is
  full or its tag barrier holds (released when a slot of the group frees or the barrier ends:
  includes/parked.lua, includes/unpark.lua). Future jobs wait in `scheduled`. So none of them
  costs a later claim anything: a blocked job is examined once, by the claim that sets it
  aside. Bound: every job the walk examines is claimed or moved out of `ready` (set aside, or a
  stale entry dropped), and a call moves at most MOVE_LIMIT; a call that falls short also puts
  back a slice of the jobs of barriers left open (includes/unpark.lua). The caller claims again
  while a call moved jobs and fell short. So a call stays short however many jobs lie ahead.
  Claimed jobs become processing with lockedAt/lockedBy, startedAt kept from the first pickup,
  attempts + 1 (not for a job resuming from a wait: a due timed wait, or a pending job with
  pendingReason 'resumed' by its token; nor for one a processor handed back unstarted, with
  pendingReason 'released'), wait fields and pendingReason cleared, and a
  `processing` event kept in the job's metadata (includes/events.lua).
  KEYS[1] jobs, KEYS[2] payloads, KEYS[3] outputs, KEYS[4] steps, KEYS[5] status:pending,
  KEYS[6] status:processing, KEYS[7] status:completed, KEYS[8] status:failed,
  KEYS[9] status:cancelled, KEYS[10] status:waiting, KEYS[11] tags, KEYS[12] ready,
  KEYS[13] ready-by-type, KEYS[14] scheduled, KEYS[15] processing, KEYS[16] finished,
  KEYS[17] groups, KEYS[18] event:id, KEYS[19] events, KEYS[20] job-events,
  KEYS[21] event-times, KEYS[22] step-names, KEYS[23] token-waiters, KEYS[24] meta,
  KEYS[25] blocked, KEYS[26] parked
  ARGV[1] now (ms); ARGV[2] worker id; ARGV[3] batch size; ARGV[4] JSON array of job types,
  or '' for any; ARGV[5] groupConcurrency, or '' for unlimited.
  ARGV[6] the store id the queue expects (includes/store.lua): a different or missing one
  raises a QUEUEDEV_STORE_RESET error before anything is written.
  Returns { rows, moved, unreadable }: rows an array of { metadata JSON, payload JSON, output
  JSON or nil, step data JSON or nil } (includes/row.lua) in claim order, the number of jobs
  this call moved out of `ready` without claiming them or put back into it, and the ids of the
  jobs whose metadata it could not read (includes/job.lua), whose entries it dropped from
  `ready` or `scheduled` like those of jobs that are gone.
]]
--- @include "util"
--- @include "job"
--- @include "events"
--- @include "state"
--- @include "row"
--- @include "waiters"
--- @include "store"

checkStore(ARGV[6])

local PROMOTE_LIMIT = 1000
local SCAN_LIMIT = 5000
local MOVE_LIMIT = 250

local now = tonumber(ARGV[1])
local worker = ARGV[2]
local batchSize = tonumber(ARGV[3])
local wanted = nil
if ARGV[4] ~= '' then
  wanted = {}
  for _, t in ipairs(cjson.decode(ARGV[4])) do wanted[t] = true end
end
local groupLimit = ARGV[5] ~= '' and tonumber(ARGV[5]) or nil

-- 1. Due scheduled entries become ready.
for _, m in ipairs(redis.call('ZRANGEBYSCORE', K['scheduled'], '-inf', now, 'LIMIT', 0, PROMOTE_LIMIT)) do
  redis.call('ZREM', K['scheduled'], m)
  local job = loadJob(idFromMember(m))
  if job then markReady(job) end
end

-- 2. Eligibility (prerequisitesMet: includes/state.lua; barrierHolders: includes/parked.lua).
-- Claims in this script keep jobs active, so a barrier's holders hold for the whole call.
local holdersMemo = {}

-- True when a job other than `job` holds its tag barrier (dependsOn.tags).
local function barrierHolds(job)
  local needed = list(job.dependsOnTags)
  if #needed == 0 then return false end
  local memoKey = table.concat(needed, '\0')
  if not holdersMemo[memoKey] then holdersMemo[memoKey] = barrierHolders(needed) end
  for _, id in ipairs(holdersMemo[memoKey]) do
    if id ~= job.id then return true end
  end
  return false
end

-- Claims in this script only fill groups: one found full stays full.
local fullGroups = {}
local function groupHasRoom(job)
  if not groupLimit or isnull(job.groupId) then return true end
  if fullGroups[job.groupId] then return false end
  if (tonumber(redis.call('HGET', K['groups'], job.groupId)) or 0) < groupLimit then return true end
  fullGroups[job.groupId] = true
  return false
end

-- 3. The ready jobs to examine, best first: { id, typed member or nil }. A claim first reads
-- a small window (a few times the batch); only when that window was full and did not yield a
-- batch does it read further (at most SCAN_LIMIT). The common claim thus costs O(batch).
local candidates = {}
local function gather(limit)
  candidates = {}
  local full = false
  if wanted then
    local entries = {}
    for t in pairs(wanted) do
      local at = #t + 2 -- where the inverted priority starts in `<type>\0<priority>\0<pad id>`
      local members = redis.call('ZRANGEBYLEX', K['ready-by-type'], '[' .. t .. '\0', '(' .. t .. '\1', 'LIMIT', 0, limit)
      if #members == limit then full = true end
      for _, m in ipairs(members) do
        entries[#entries + 1] = { tonumber(string.sub(m, at, at + 9)), idFromMember(m), m }
      end
    end
    table.sort(entries, function(a, b)
      if a[1] ~= b[1] then return a[1] < b[1] end
      return a[2] < b[2]
    end)
    for i = 1, math.min(#entries, limit) do candidates[i] = { entries[i][2], entries[i][3] } end
  else
    local members = redis.call('ZRANGE', K['ready'], 0, limit - 1)
    full = #members == limit
    for i, m in ipairs(members) do candidates[i] = { tonumber(m), nil } end
  end
  return full
end

-- 4. Walk them.
local claimed = {}
local claimedIds = {}
-- The `ready` and `ready-by-type` entries of the jobs claimed since the last dropClaimed(): one
-- ZREM per key for them all. A claimed job is processing, so nothing in this call puts it back.
local claimedReady = {}
local claimedTyped = {}
local function dropClaimed()
  if #claimedReady == 0 then return end
  redis.call('ZREM', K['ready'], unpack(claimedReady))
  redis.call('ZREM', K['ready-by-type'], unpack(claimedTyped))
  claimedReady, claimedTyped = {}, {}
end

-- `ahead`: the most jobs this walk may still claim, counting this one (keepProcessingEvent
-- takes that many event ids at once).
local function claim(job, ahead)
  -- Resuming from a wait does not consume an attempt (DETAILS "Handler context"), nor does a
  -- job a processor handed back unstarted (release-jobs.lua: its claim counted one already).
  local resuming = job.status == 'waiting' or job.pendingReason == 'resumed' or job.pendingReason == 'released'
  dropTokenWaiter(job)
  transition(job, 'processing', now)
  if not resuming then job.attempts = job.attempts + 1 end
  job.lockedAt = now
  job.lockedBy = worker
  local neverStarted = isnull(job.startedAt)
  if neverStarted then job.startedAt = now end
  job.nextAttemptAt = nil
  job.pendingReason = nil
  job.waitUntil = nil
  job.waitTokenId = nil
  claimedReady[#claimedReady + 1] = pad(job.id)
  claimedTyped[#claimedTyped + 1] = typedReadyMember(job)
  keepProcessingEvent(job, now, ahead)
  local meta = store(job, now, 'claimed')
  -- The payload is read with the others' at the end (one HMGET).
  claimed[#claimed + 1] = jobRow(job.id, meta, neverStarted, true)
  claimedIds[#claimedIds + 1] = int(job.id)
end

local moved = 0
local function holdBack(job, why)
  setAside(job, why)
  moved = moved + 1
end

local function consider(id, typedMember, ahead)
  local job = loadJob(id)
  local due = job and dueAt(job)
  if not job then
    -- A stale entry (the job is gone, or its metadata unreadable): drop it.
    moved = moved + 1
    redis.call('ZREM', K['ready'], pad(id))
    if typedMember then redis.call('ZREM', K['ready-by-type'], typedMember) end
  elseif due == nil then
    -- No longer claimable by status: drop the stale entry.
    moved = moved + 1
    unplace(job)
  elseif due > now then
    -- Promoted under a later clock than this caller's: back to scheduled.
    moved = moved + 1
    unplace(job)
    redis.call('ZADD', K['scheduled'], due, pad(id))
  elseif not prerequisitesMet(job) then
    -- Out of `ready` until the prerequisite completes (includes/release.lua). This also moves
    -- the blocked jobs a store of an earlier layout kept in `ready`, a window at a time.
    holdBack(job, 'prerequisites')
  elseif not groupHasRoom(job) then
    holdBack(job, 'group')
  elseif not wanted or wanted[job.jobType] then
    if barrierHolds(job) then
      holdBack(job, 'barrier')
    else
      claim(job, ahead)
    end
  end
end

local seen = {}
local function walk()
  for i, c in ipairs(candidates) do
    if #claimed >= batchSize or moved >= MOVE_LIMIT then break end
    if not seen[c[1]] then
      seen[c[1]] = true
      consider(c[1], c[2], math.min(batchSize - #claimed, #candidates - i + 1))
    end
  end
  -- Before `ready` is read again.
  dropClaimed()
end

-- Writes nothing here reads back go out as one command per key at the end. A claimed job's
-- metadata and status sets are read again only through other jobs' checks, which see it
-- active (pending or processing) and with its tags either way; each job is considered once.
deferWrites({ K['processing'], K['events'], K['job-events'], K['event-times'], K['jobs'], K['status:pending'],
  K['status:processing'], K['status:waiting'], K['status:failed'] })
local window = math.min(SCAN_LIMIT, batchSize * 2)
local more = gather(window)
walk()
if #claimed < batchSize and more and moved < MOVE_LIMIT then
  -- What the first window moved or claimed has left `ready`: read just enough past it.
  gather(math.min(SCAN_LIMIT, batchSize - #claimed + MOVE_LIMIT - moved))
  walk()
end
if #claimed < batchSize and moved < MOVE_LIMIT and hasParked() then
  moved = moved + releaseOpenBarriers(MOVE_LIMIT - moved)
end
flushWrites()
if #claimed > 0 then
  for i, payload in ipairs(redis.call('HMGET', K['payloads'], unpack(claimedIds))) do claimed[i][2] = payload end
end
return { claimed, moved, unreadableJobs }
