--[[
  Edits pending jobs (SPEC §2.6, §4.3): one job, or every pending job matching a filter. Only
  the supplied fields change; a new runAt or priority moves the job between ready and
  scheduled; new tags update the tag index. Writes an `edited` event per job, and signals a
  wake-up when runAt changed (a job may have become due).
  KEYS[1] jobs, KEYS[2] payloads, KEYS[3] status:pending, KEYS[4] status:processing,
  KEYS[5] status:completed, KEYS[6] status:failed, KEYS[7] status:cancelled,
  KEYS[8] status:waiting, KEYS[9] ready, KEYS[10] ready-by-type, KEYS[11] scheduled,
  KEYS[12] processing, KEYS[13] finished, KEYS[14] groups, KEYS[15] event:id, KEYS[16] events,
  KEYS[17] job-events, KEYS[18] event-times, KEYS[19] wake, KEYS[20] all, KEYS[21] types,
  KEYS[22] tags, KEYS[23] blocked, KEYS[24] parked, KEYS[25] run-at
  ARGV[1] now (ms); ARGV[2] job id, or '' to select by filter; ARGV[3] filter query JSON;
  ARGV[4] the changed metadata fields as JSON (stored names and forms, no payload);
  ARGV[5] the new payload's JSON text, or '' to keep it; ARGV[6] the `edited` event's
  metadata JSON text (the updated fields, with the payload spliced in by the caller);
  ARGV[7] the slice cursor ('' for the first slice), ARGV[8] the most candidate jobs this call
  examines (a filter selects in bounded slices, newest first; the caller repeats until the
  cursor is 0).
  Returns { ids edited, next cursor (0 when no slice is left) }.
]]
--- @include "util"
--- @include "job"
--- @include "events"
--- @include "wake"
--- @include "state"
--- @include "filter"
--- @include "run-at"

local now = tonumber(ARGV[1])
local changes = cjson.decode(ARGV[4])
local payload = ARGV[5]
local metadata = ARGV[6]

local ids, cursor = selectedIds('pending', 7)

local edited = {}
for _, id in ipairs(ids) do
  local job = loadJob(id)
  if job and job.status == 'pending' then
    local pid = pad(id)
    if changes.tags then
      -- Its old tags may have held barriers of parked jobs (includes/unpark.lua).
      noteTagsLeft(list(job.tags))
      for _, tag in ipairs(list(job.tags)) do redis.call('ZREM', K['tags'], tag .. '\0' .. pid) end
      for _, tag in ipairs(list(changes.tags)) do redis.call('ZADD', K['tags'], 0, tag .. '\0' .. pid) end
    end
    -- Before the priority changes: the typed ready and parked members hold it.
    local wasReady = unplace(job)
    for field, value in pairs(changes) do job[field] = leanValue(value) end
    job.updatedAt = now
    local _, inLane = store(job, now)
    if wasReady and not inLane then leftGroupLane(job) end
    if changes.runAt then indexRunAt(job) end
    if payload ~= '' then redis.call('HSET', K['payloads'], int(id), payload) end
    addEvent(id, 'edited', now, metadata)
    edited[#edited + 1] = id
  end
end
if (#edited > 0 and changes.runAt) or releasedAny() then signalWake() end
return { edited, cursor }
