-- `token-waiters`: `<token id>\0<pad job id>` for every job in status waiting on a token
-- (waitTokenId set). Kept exact: added by enter-wait, removed whenever such a job leaves
-- `waiting` (resume, cancel, a claim of a timed wait).

local function waiterMember(tokenId, jobId)
  return tokenId .. '\0' .. pad(jobId)
end

-- Forgets that `job` waits on a token (it leaves `waiting`): call before changing its status.
local function dropTokenWaiter(job)
  if job.status == 'waiting' and not isnull(job.waitTokenId) then
    redis.call('ZREM', K['token-waiters'], waiterMember(job.waitTokenId, job.id))
  end
end
