-- Settling a token (complete-token, expire-tokens): the token leaves 'waiting', and every job
-- waiting on it becomes pending with pendingReason 'resumed' (the claim adds no attempt for
-- it), due now. No lost wake-up: enter-wait checks the token in the same atomic step.
--- @include "tokens"
--- @include "waiters"
--- @include "run-at"

-- Settles the open `token` as `status` ('completed' or 'timed_out') at `now`. Returns the
-- number of jobs resumed.
local function settleToken(token, status, now)
  token.status = status
  token.completedAt = now
  saveToken(token)
  redis.call('ZREM', K['token-timeouts'], token.id)
  local min, max = '[' .. token.id .. '\0', '(' .. token.id .. '\1'
  local resumed = 0
  for _, m in ipairs(redis.call('ZRANGEBYLEX', K['token-waiters'], min, max)) do
    local job = loadJob(idFromMember(m))
    if job and job.status == 'waiting' and job.waitTokenId == token.id then
      transition(job, 'pending', now)
      job.pendingReason = 'resumed'
      job.waitTokenId = nil
      job.waitUntil = nil
      -- Ready now (runAt is already past for a job that ran, unless clocks disagree).
      if job.runAt > now then
        job.runAt = now
        indexRunAt(job)
      end
      store(job, now)
      resumed = resumed + 1
    end
  end
  redis.call('ZREMRANGEBYLEX', K['token-waiters'], min, max)
  return resumed
end
