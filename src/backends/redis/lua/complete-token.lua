--[[
  Completes an open waitpoint token with an output stored verbatim, and resumes the jobs
  waiting on it: pending with pendingReason 'resumed', ready now, wake-up signal
  (includes/resume.lua). A token that is not open is left as it is.
  KEYS[1] tokens, KEYS[2] token-outputs, KEYS[3] token-timeouts, KEYS[4] token-waiters,
  KEYS[5] jobs, KEYS[6] status:pending, KEYS[7] status:processing, KEYS[8] status:completed,
  KEYS[9] status:failed, KEYS[10] status:cancelled, KEYS[11] status:waiting, KEYS[12] ready,
  KEYS[13] ready-by-type, KEYS[14] scheduled, KEYS[15] processing, KEYS[16] finished,
  KEYS[17] groups, KEYS[18] wake, KEYS[19] blocked, KEYS[20] tags, KEYS[21] parked,
  KEYS[22] run-at, KEYS[23] event:id, KEYS[24] events, KEYS[25] job-events,
  KEYS[26] event-times
  ARGV[1] token id; ARGV[2] output JSON text; ARGV[3] now (ms).
  Returns 1 when completed, 0 when the token does not exist or is not open.
]]
--- @include "util"
--- @include "job"
--- @include "wake"
--- @include "state"
--- @include "resume"

local token = loadToken(ARGV[1])
if not token or token.status ~= 'waiting' then return 0 end
redis.call('HSET', K['token-outputs'], token.id, ARGV[2])
if settleToken(token, 'completed', tonumber(ARGV[3])) > 0 then signalWake() end
return 1
