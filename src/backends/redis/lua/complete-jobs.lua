--[[
  Records completions, fenced: only jobs still processing and locked by the given worker
  (SPEC §3; DETAILS "Fencing"). Sets completedAt, stores the output when given, clears step
  data, frees the group slot, keeps the `completed` event in the job's metadata beside its
  `processing` one (includes/events.lua), moves the dependents it released from
  `blocked` to `ready` (includes/release.lua), and signals a wake-up when a pending job depends
  on a completed one (by id or tag barrier). Adds them to the minute's throughput counter.
  KEYS[1] jobs, KEYS[2] outputs, KEYS[3] steps, KEYS[4] status:pending,
  KEYS[5] status:processing, KEYS[6] status:completed, KEYS[7] status:failed,
  KEYS[8] status:cancelled, KEYS[9] status:waiting, KEYS[10] ready, KEYS[11] ready-by-type,
  KEYS[12] scheduled, KEYS[13] processing, KEYS[14] finished, KEYS[15] groups,
  KEYS[16] event:id, KEYS[17] events, KEYS[18] job-events, KEYS[19] event-times, KEYS[20] wake,
  KEYS[21] deps, KEYS[22] tag-deps, KEYS[23] step-names, KEYS[24] blocked, KEYS[25] tags,
  KEYS[26] parked, KEYS[27] throughput
  ARGV[1] now (ms); ARGV[2] JSON array of { id, workerId, output? } where output is the
  output's JSON text (absent: keep what setOutput stored).
  Returns the ids recorded.
]]
--- @include "util"
--- @include "job"
--- @include "events"
--- @include "wake"
--- @include "state"
--- @include "steps"
--- @include "release"
--- @include "throughput"

local now = tonumber(ARGV[1])
local recorded = {}
local unblocks = false
-- Dependents and step data are the exception: when no job has any (no `deps`, `tag-deps` or
-- `step-names` key), one EXISTS per call replaces their range reads per job.
local anyDependents = redis.call('EXISTS', K['deps'], K['tag-deps']) > 0
local anySteps = redis.call('EXISTS', K['step-names']) > 0

-- True when a pending job waits on `job`: listed it in dependsOn.jobIds, or has a tag barrier
-- its tags cover.
local function holdsBackPending(job)
  local p = pad(job.id)
  for _, m in ipairs(redis.call('ZRANGEBYLEX', K['deps'], '[' .. p .. '\0', '(' .. p .. '\1')) do
    if redis.call('ZSCORE', K['status:pending'], int(idFromMember(m))) then return true end
  end
  local have = {}
  for _, t in ipairs(list(job.tags)) do have[t] = true end
  for _, t in ipairs(list(job.tags)) do
    for _, m in ipairs(redis.call('ZRANGEBYLEX', K['tag-deps'], '[' .. t .. '\0', '(' .. t .. '\1')) do
      local id = idFromMember(m)
      if redis.call('ZSCORE', K['status:pending'], int(id)) then
        local other = loadJob(id)
        local all = other ~= nil
        for _, needed in ipairs(list(other and other.dependsOnTags)) do
          if not have[needed] then all = false break end
        end
        if all then return true end
      end
    end
  end
  return false
end

-- Writes nothing here reads back go out as one command per key at the end. The metadata and
-- the processing sets of a completed job are not read again here (an id recorded already is
-- skipped). `status:completed` is read by prerequisitesMet, when a job released here has
-- prerequisites; a store without dependents has no such job, and it is deferred too.
local unread = { K['finished'], K['events'], K['job-events'], K['event-times'], K['jobs'], K['status:processing'],
  K['processing'] }
if not anyDependents then unread[#unread + 1] = K['status:completed'] end
deferWrites(unread)
local seen = {}
local completions = cjson.decode(ARGV[2])
for i, c in ipairs(completions) do
  local job = not seen[c.id] and loadJob(c.id)
  if job and job.status == 'processing' and job.lockedBy == c.workerId then
    seen[c.id] = true
    local sid = int(job.id)
    transition(job, 'completed', now)
    job.completedAt = now
    keepCompletedEvent(job, #completions - i + 1)
    store(job, now, 'processing')
    if c.output then redis.call('HSET', K['outputs'], sid, c.output) end
    if anySteps then clearSteps(job.id) end
    recorded[#recorded + 1] = job.id
    if anyDependents then
      if releaseDependents(job.id) then unblocks = true end
      if not unblocks and holdsBackPending(job) then unblocks = true end
    end
  end
end
flushWrites()
countAttempts('completed', #recorded, now)
if unblocks or releasedAny() then signalWake() end
return recorded
