--[[
  Times out up to a batch of open waitpoint tokens whose timeoutAt has passed (SPEC §4.9,
  DETAILS "Queue-level token operations"): status 'timed_out', completedAt now, and their
  waiting jobs resume as on completion (includes/resume.lua), to find `ok: false`.
  KEYS[1] tokens, KEYS[2] token-timeouts, KEYS[3] token-waiters, KEYS[4] jobs,
  KEYS[5] status:pending, KEYS[6] status:processing, KEYS[7] status:completed,
  KEYS[8] status:failed, KEYS[9] status:cancelled, KEYS[10] status:waiting, KEYS[11] ready,
  KEYS[12] ready-by-type, KEYS[13] scheduled, KEYS[14] processing, KEYS[15] finished,
  KEYS[16] groups, KEYS[17] wake, KEYS[18] blocked, KEYS[19] tags, KEYS[20] parked,
  KEYS[21] run-at, KEYS[22] event:id, KEYS[23] events, KEYS[24] job-events,
  KEYS[25] event-times
  ARGV[1] now (ms, inclusive); ARGV[2] batch size.
  Returns { expired, scanned }: tokens timed out, and entries examined (fewer than the batch
  size: nothing else is due).
]]
--- @include "util"
--- @include "job"
--- @include "wake"
--- @include "state"
--- @include "resume"

local now = tonumber(ARGV[1])
local ids = redis.call('ZRANGEBYSCORE', K['token-timeouts'], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local expired, resumed = 0, 0
for _, id in ipairs(ids) do
  local token = loadToken(id)
  if token and token.status == 'waiting' then
    resumed = resumed + settleToken(token, 'timed_out', now)
    expired = expired + 1
  else
    redis.call('ZREM', K['token-timeouts'], id) -- a stale entry
  end
end
if resumed > 0 then signalWake() end
return { expired, #ids }
