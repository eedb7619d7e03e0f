--[[
  Claims up to a batch of eligible jobs for a worker (SPEC §3, §4.6, §4.8; DETAILS "Group
  limits"). First moves due entries of `scheduled` to `ready` (at most PROMOTE_LIMIT per call),
  then walks the ready jobs best first (priority desc, then id asc): `ready`, or with a type
  filter `ready-by-type` for just those types, so jobs of other types cost nothing. It takes a
  job when it is really due (pending at runAt, failed at nextAttemptAt, waiting at waitUntil);
  every dependsOn.jobIds job is completed (a cleaned-up one counts as completed); no OTHER
  pending/processing/waiting job carries all its dependsOn.tags; and its group has a free slot
  under groupConcurrency (the `groups` counter: exact across processes, since the script runs
  atomically). Jobs of a group found full are skipped from `claim-hints`, without decoding.
  Jobs waiting for a dependsOn.jobIds prerequisite are not in `ready` but in `blocked` (moved
  there when found, released when the prerequisite completes), and future jobs wait in
  `scheduled`, so neither costs a claim anything. Bound: the walk examines at most SCAN_LIMIT
  ready jobs per call, so a claim stays cheap however many jobs wait behind full groups or tag
  barriers; a job beyond that window is reached once enough of the ones ahead of it leave
  `ready`.
  Claimed jobs become processing with lockedAt/lockedBy, startedAt kept from the first pickup,
  attempts + 1 (not for a job resuming from a wait: a due timed wait, or a pending job with
  pendingReason 'resumed' by its token), wait fields and pendingReason cleared, and a
  `processing` event.
  KEYS[1] jobs, KEYS[2] payloads, KEYS[3] outputs, KEYS[4] steps, KEYS[5] status:pending,
  KEYS[6] status:processing, KEYS[7] status:completed, KEYS[8] status:failed,
  KEYS[9] status:cancelled, KEYS[10] status:waiting, KEYS[11] tags, KEYS[12] ready,
  KEYS[13] ready-by-type, KEYS[14] claim-hints, KEYS[15] scheduled, KEYS[16] processing,
  KEYS[17] finished, KEYS[18] groups, KEYS[19] event:id, KEYS[20] events, KEYS[21] job-events,
  KEYS[22] event-times, KEYS[23] step-names, KEYS[24] token-waiters, KEYS[25] meta,
  KEYS[26] blocked
  ARGV[1] now (ms); ARGV[2] worker id; ARGV[3] batch size; ARGV[4] JSON array of job types,
  or '' for any; ARGV[5] groupConcurrency, or '' for unlimited.
  ARGV[6] the store id the queue expects (includes/store.lua): a different or missing one
  raises a QUEUEDEV_STORE_RESET error before anything is written.
  Returns an array of { metadata JSON, payload JSON, output JSON or nil, step data JSON or nil }
  (includes/row.lua), in claim order.
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

-- 2. Eligibility (prerequisitesMet: includes/state.lua).
local ACTIVE = { 'status:pending', 'status:processing', 'status:waiting' }
local holdersMemo = {}

-- Up to two active (pending/processing/waiting) jobs carrying every tag of `needed`: enough
-- to tell whether one other than the asking job exists. Scans the rarest needed tag. Claims
-- in this script keep jobs active, so the answer holds for the whole call.
local function activeHolders(needed)
  local memoKey = table.concat(needed, '\0')
  if holdersMemo[memoKey] then return holdersMemo[memoKey] end
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
    for _, key in ipairs(ACTIVE) do
      if redis.call('ZSCORE', K[key], sid) then active = true break end
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
  holdersMemo[memoKey] = holders
  return holders
end

-- True when a job other than `job` holds its tag barrier (dependsOn.tags).
local function barrierHolds(job)
  local needed = list(job.dependsOnTags)
  if #needed == 0 then return false end
  for _, id in ipairs(activeHolders(needed)) do
    if id ~= job.id then return true end
  end
  return false
end

local function groupHasRoom(job)
  if not groupLimit or isnull(job.groupId) then return true end
  return (tonumber(redis.call('HGET', K['groups'], job.groupId)) or 0) < groupLimit
end

-- 3. The ready jobs to examine, best first: { id, typed member or nil }. A claim first reads
-- a small window (a few times the batch); only when that window was full and did not yield a
-- batch does it read up to SCAN_LIMIT. The common claim thus costs O(batch), not O(SCAN_LIMIT).
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
local fullGroups = {}

-- Group ids from claim hints, fetched a page at a time (one HMGET per page) and only when a
-- group limit applies: false for a job without group (or without hint).
local HINT_PAGE = 200
local hintedGroups = {}
local function hintedGroup(index)
  if hintedGroups[index] == nil then
    local ids = {}
    local last = math.min(index + HINT_PAGE - 1, #candidates)
    for i = index, last do ids[#ids + 1] = int(candidates[i][1]) end
    local hints = redis.call('HMGET', K['claim-hints'], unpack(ids))
    for i = index, last do
      local hint = hints[i - index + 1]
      local sep = hint and string.find(hint, '\0', 1, true)
      local group = sep and string.sub(hint, sep + 1) or ''
      hintedGroups[i] = group ~= '' and group or false
    end
  end
  return hintedGroups[index]
end

local function claim(job)
  -- Resuming from a wait does not consume an attempt (DETAILS "Handler context").
  local resuming = job.status == 'waiting' or job.pendingReason == 'resumed'
  dropTokenWaiter(job)
  transition(job, 'processing', now)
  if not resuming then job.attempts = job.attempts + 1 end
  job.lockedAt = now
  job.lockedBy = worker
  local neverStarted = isnull(job.startedAt)
  if neverStarted then job.startedAt = now end
  job.nextAttemptAt = NULL
  job.pendingReason = NULL
  job.waitUntil = NULL
  job.waitTokenId = NULL
  local meta = store(job, now, 'ready')
  addEvent(job.id, 'processing', now, nil)
  -- The payload is read with the others' at the end (one HMGET).
  claimed[#claimed + 1] = jobRow(job.id, meta, neverStarted, true)
  claimedIds[#claimedIds + 1] = int(job.id)
end

local function consider(index, id, typedMember)
  if groupLimit then
    local group = hintedGroup(index)
    if group and fullGroups[group] then return end
  end
  local job = loadJob(id)
  local due = job and dueAt(job)
  if not job then
    -- A stale entry: drop it.
    redis.call('ZREM', K['ready'], pad(id))
    if typedMember then redis.call('ZREM', K['ready-by-type'], typedMember) end
  elseif due == nil then
    -- No longer claimable by status: drop the stale entry.
    unplace(job)
  elseif due > now then
    -- Promoted under a later clock than this caller's: back to scheduled.
    unplace(job)
    redis.call('ZADD', K['scheduled'], due, pad(id))
  elseif not prerequisitesMet(job) then
    -- Waits for a prerequisite: out of `ready` until it completes (includes/release.lua). This
    -- also moves the blocked jobs a store of an earlier layout kept in `ready`, a window at a time.
    unplace(job)
    block(job)
  elseif not groupHasRoom(job) then
    fullGroups[job.groupId] = true
  elseif (not wanted or wanted[job.jobType]) and not barrierHolds(job) then
    claim(job)
  end
end

local seen = {}
local function walk()
  for i, c in ipairs(candidates) do
    if #claimed >= batchSize then break end
    if not seen[c[1]] then
      seen[c[1]] = true
      consider(i, c[1], c[2])
    end
  end
end

-- Writes nothing here reads back go out as one command per key at the end. A claimed job's
-- metadata and status sets are read again only through other jobs' checks, which see it
-- active (pending or processing) and with its tags either way; each job is considered once.
deferWrites({ K['processing'], K['events'], K['job-events'], K['event-times'], K['jobs'], K['status:pending'],
  K['status:processing'], K['status:waiting'], K['status:failed'] })
local window = math.min(SCAN_LIMIT, math.max(batchSize * 4, 64))
local more = gather(window)
walk()
if #claimed < batchSize and more and window < SCAN_LIMIT then
  hintedGroups = {}
  gather(SCAN_LIMIT)
  walk()
end
flushWrites()
if #claimed > 0 then
  for i, payload in ipairs(redis.call('HMGET', K['payloads'], unpack(claimedIds))) do claimed[i][2] = payload end
end
return claimed
