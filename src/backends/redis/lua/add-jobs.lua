--[[
  Adds a batch of jobs atomically (SPEC §4.1): idempotency keys, batchDepRef placeholders,
  dependency checks, every index, `added` events and the wake-up signal. Everything is
  validated before the first write, so a rejected batch writes nothing.
  KEYS[1] id, KEYS[2] jobs, KEYS[3] payloads, KEYS[4] idem, KEYS[5] all,
  KEYS[6] status:pending, KEYS[7] status:processing, KEYS[8] status:completed,
  KEYS[9] status:failed, KEYS[10] status:cancelled, KEYS[11] status:waiting, KEYS[12] types,
  KEYS[13] tags, KEYS[14] tag-deps, KEYS[15] deps, KEYS[16] ready, KEYS[17] ready-by-type,
  KEYS[18] claim-hints, KEYS[19] scheduled, KEYS[20] processing, KEYS[21] finished,
  KEYS[22] groups, KEYS[23] event:id, KEYS[24] events, KEYS[25] job-events,
  KEYS[26] event-times, KEYS[27] wake, KEYS[28] meta, KEYS[29] blocked, KEYS[30] parked,
  KEYS[31] run-at
  ARGV[1] now (ms); ARGV[2] the batch, a JSON array of { job, meta?, payload, added }: job is
  the stored metadata without id (dependsOnJobIds may hold placeholders -(index + 1)), or,
  when meta is given, only the fields this script reads (jobType, status, priority, runAt,
  tags, dependsOnTags, idempotencyKey), meta being the stored metadata as JSON text without id
  (saved as is, includes/insert.lua); payload the payload's JSON text, added the `added`
  event's metadata JSON text, or '' to keep the event in the job's metadata.
  ARGV[3] the store id the queue expects (includes/store.lua): a different or missing one
  raises a QUEUEDEV_STORE_RESET error before anything is written.
  Returns { 'ok', ids, insertedIds } (ids in input order; a taken or repeated idempotency key
  gives the existing id), or { 'blocked', ids, statuses } when dependsOn.jobIds names jobs that
  do not exist (status '') or already ended cancelled or failed for good (their status).
]]
--- @include "util"
--- @include "job"
--- @include "events"
--- @include "wake"
--- @include "state"
--- @include "insert"
--- @include "store"

checkStore(ARGV[3])

local now = tonumber(ARGV[1])
local batch = cjson.decode(ARGV[2])

-- 1. Idempotency: a key already stored resolves to its job; a key repeated in the batch
--    resolves to its first occurrence.
local existing, firstOf, byKey = {}, {}, {}
for i, entry in ipairs(batch) do
  local key = entry.job.idempotencyKey
  if not isnull(key) then
    local stored = redis.call('HGET', K['idem'], key)
    if stored then
      existing[i] = tonumber(stored)
    elseif byKey[key] then
      firstOf[i] = byKey[key]
    else
      byKey[key] = i
    end
  end
end

-- The batch index a placeholder finally names (following repeated keys to the first).
local function target(index)
  return firstOf[index] or index
end

-- 2. Dependencies: every existing job named (directly, or by a placeholder whose key was
--    taken) must exist and must not have ended cancelled or failed with no retry left.
local blocked, statuses, checked = {}, {}, {}
local function checkExisting(id)
  if checked[id] then return end
  checked[id] = true
  local job = loadJob(id)
  if not job then
    blocked[#blocked + 1] = id
    statuses[#statuses + 1] = ''
  elseif job.status == 'cancelled' or (job.status == 'failed' and isnull(job.nextAttemptAt)) then
    blocked[#blocked + 1] = id
    statuses[#statuses + 1] = job.status
  end
end
for _, entry in ipairs(batch) do
  local deps = entry.job.dependsOnJobIds
  if deps then
    for _, dep in ipairs(list(deps)) do
      if dep > 0 then
        checkExisting(dep)
      elseif existing[target(-dep)] then
        checkExisting(existing[target(-dep)])
      end
    end
  end
end
if #blocked > 0 then return { 'blocked', blocked, statuses } end

-- 3. Ids, in input order, for the jobs really inserted (one INCRBY for all).
local ids, insertedIds = {}, {}
local inserting = 0
for i = 1, #batch do
  if not existing[i] and not firstOf[i] then inserting = inserting + 1 end
end
local nextId = inserting > 0 and redis.call('INCRBY', K['id'], inserting) - inserting + 1 or 0
for i = 1, #batch do
  if existing[i] then
    ids[i] = existing[i]
  elseif not firstOf[i] then
    ids[i] = nextId
    nextId = nextId + 1
    insertedIds[#insertedIds + 1] = ids[i]
  end
end
for i = 1, #batch do
  if firstOf[i] then ids[i] = ids[firstOf[i]] end
end
-- The ids of the `added` events kept in metadata (added ''), one INCRBY for all.
local kept = 0
for i, entry in ipairs(batch) do
  if entry.added == '' and not existing[i] and not firstOf[i] then kept = kept + 1 end
end
reserveKeptEventIds(kept)

-- 4. Write: placeholders become real ids (deduplicated; a job never waits on itself, which
--    only a placeholder to a repeat of its own idempotency key could produce). In a batch,
--    writes to the keys this script does not read back go out as one command per key
--    (includes/writes.lua); `jobs` and `status:completed` stay direct, since
--    prerequisitesMet reads them. A single job writes each key once anyway: gathering its
--    writes would only cost time.
if #batch > 1 then
  deferWrites({ K['payloads'], K['all'], K['run-at'], K['status:pending'], K['types'], K['tags'],
    K['tag-deps'], K['deps'], K['idem'], K['ready'], K['ready-by-type'], K['blocked'], K['scheduled'],
    K['events'], K['job-events'], K['event-times'] })
end
for i, entry in ipairs(batch) do
  if not existing[i] and not firstOf[i] then
    local job = entry.job
    job.id = ids[i]
    if not isnull(job.dependsOnJobIds) then
      local resolved, seen = {}, {}
      for _, dep in ipairs(job.dependsOnJobIds) do
        local id = dep > 0 and dep or ids[-dep]
        if id ~= job.id and not seen[id] then
          seen[id] = true
          resolved[#resolved + 1] = id
        end
      end
      job.dependsOnJobIds = #resolved > 0 and resolved or nil
    end
    insertJob(job, entry.payload, now, entry.added, entry.meta)
  end
end
flushWrites()
if #insertedIds > 0 then signalWake() end
return { 'ok', ids, insertedIds }
