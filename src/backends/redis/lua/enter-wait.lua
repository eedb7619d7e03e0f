--[[
  Moves a processing job to `waiting`, fenced (SPEC §3; DETAILS "Handler context"): a timed
  wait (waitUntil: the job sits in `scheduled` until then, and the claim resumes it) or a token
  wait (waitTokenId: in no ready/scheduled set until the token settles). The lock fields, the
  processing entry and the group slot are released; `attempts` stays (the resume claim adds
  none). An optional step (the wait's own marker) is merged into the step data in the same
  write. Event `waiting` { waitUntil, tokenId }.
  For a token wait the token is checked here, atomically: when it is no longer open, nothing
  changes and the token comes back, so a token settled just before the wait is never missed.
  KEYS[1] jobs, KEYS[2] status:pending, KEYS[3] status:processing, KEYS[4] status:completed,
  KEYS[5] status:failed, KEYS[6] status:cancelled, KEYS[7] status:waiting, KEYS[8] ready,
  KEYS[9] ready-by-type, KEYS[10] scheduled, KEYS[11] processing, KEYS[12] finished,
  KEYS[13] groups, KEYS[14] event:id, KEYS[15] events, KEYS[16] job-events,
  KEYS[17] event-times, KEYS[18] wake, KEYS[19] steps, KEYS[20] step-names, KEYS[21] tokens,
  KEYS[22] token-outputs, KEYS[23] token-waiters, KEYS[24] blocked, KEYS[25] tags, KEYS[26] parked
  ARGV[1] job id; ARGV[2] worker id; ARGV[3] now (ms); ARGV[4] waitUntil (ms), or '';
  ARGV[5] token id, or ''; ARGV[6] step name, or '' for no step; ARGV[7] the step value's
  JSON text; ARGV[8] the `waiting` event's metadata JSON text.
  Returns { 'waiting' }, { 'lost' } (not processing or not locked by this worker),
  { 'token_settled', token JSON, output JSON or nil }, or { 'missing' } when no such token.
]]
--- @include "util"
--- @include "job"
--- @include "events"
--- @include "wake"
--- @include "state"
--- @include "steps"
--- @include "tokens"
--- @include "waiters"

local job = loadJob(tonumber(ARGV[1]))
if not job or job.status ~= 'processing' or job.lockedBy ~= ARGV[2] then return { 'lost' } end
local now = tonumber(ARGV[3])
local waitUntil = ARGV[4] ~= '' and tonumber(ARGV[4]) or nil
local tokenId = ARGV[5] ~= '' and ARGV[5] or nil

if tokenId then
  local token = loadToken(tokenId)
  if not token then return { 'missing' } end
  if token.status ~= 'waiting' then
    return { 'token_settled', redis.call('HGET', K['tokens'], tokenId), redis.call('HGET', K['token-outputs'], tokenId) }
  end
  token.jobId = job.id
  saveToken(token)
  redis.call('ZADD', K['token-waiters'], 0, waiterMember(tokenId, job.id))
end

transition(job, 'waiting', now)
job.waitUntil = waitUntil
job.waitTokenId = tokenId
store(job, now, 'processing')
if ARGV[6] ~= '' then saveStepValue(job.id, ARGV[6], ARGV[7]) end
addEvent(job.id, 'waiting', now, ARGV[8])
-- A freed group slot, or a wait already over, may let a processor run something now.
if not isnull(job.groupId) or (waitUntil and waitUntil <= now) then signalWake() end
return { 'waiting' }
