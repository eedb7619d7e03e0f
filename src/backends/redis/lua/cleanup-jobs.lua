--[[
  Removes up to a batch of finished jobs (completed, cancelled, failed with no retry left)
  last updated before a time, with every index entry, payload, output, step data,
  idempotency key and event (SPEC §4.3, DETAILS "Retries, failures, reclaim"), as deleteJob
  removes one (includes/remove.lua), each key's removals of the whole slice in one command.
  KEYS[1] jobs, KEYS[2] payloads, KEYS[3] outputs, KEYS[4] steps, KEYS[5] idem, KEYS[6] all,
  KEYS[7] status:pending, KEYS[8] status:processing, KEYS[9] status:completed,
  KEYS[10] status:failed, KEYS[11] status:cancelled, KEYS[12] status:waiting, KEYS[13] types,
  KEYS[14] tags, KEYS[15] tag-deps, KEYS[16] deps, KEYS[17] ready, KEYS[18] ready-by-type,
  KEYS[19] claim-hints, KEYS[20] scheduled, KEYS[21] processing, KEYS[22] finished,
  KEYS[23] events, KEYS[24] job-events, KEYS[25] event-times, KEYS[26] step-names,
  KEYS[27] blocked, KEYS[28] groups, KEYS[29] parked, KEYS[30] run-at, KEYS[31] event:id
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
--- @include "remove"

local members = redis.call('ZRANGEBYSCORE', K['finished'], '-inf', '(' .. ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local removed = 0
deferWrites(removalDeferredKeys())
for _, m in ipairs(members) do
  local job = loadJob(tonumber(m))
  if job then
    removeJob(job) -- its `finished` entry included
    removed = removed + 1
  else
    redis.call('ZREM', K['finished'], m)
  end
end
flushWrites()
return { removed, #members }
