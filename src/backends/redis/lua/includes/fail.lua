-- Recording a failed attempt (fail-jobs, reclaim-stuck): error history, retry scheduling or the
-- final failure with dead-letter routing (SPEC §2.5) and the dependency cascade.
--- @include "insert"
--- @include "cascade"

-- Creates the dead-letter job for `job`. The envelope is assembled as text around the
-- verbatim payload, so the payload's numbers are never re-encoded.
local function createDeadLetter(job, message, reason, now, nowIso)
  local payload = redis.call('HGET', K['payloads'], int(job.id)) or 'null'
  local envelope = '{"originalJob":{"id":' .. int(job.id) .. ',"jobType":' .. json(job.jobType)
    .. ',"attempts":' .. int(job.attempts) .. ',"maxAttempts":' .. int(job.maxAttempts)
    .. '},"originalPayload":' .. payload
    .. ',"failure":{"message":' .. json(message) .. ',"reason":' .. json(reason)
    .. ',"failedAt":' .. json(nowIso) .. '}}'
  local dl = {
    id = newId(), jobType = job.deadLetterJobType, status = 'pending', createdAt = now, updatedAt = now,
    attempts = 0, maxAttempts = 3, priority = 0, runAt = now,
    forceKillOnTimeout = false,
  }
  insertJob(dl, envelope, now, '')
  return dl.id
end

-- Fails a job its caller checked processing (so store() clears that one place only, as a
-- completion's does). `retryAt` (ms) schedules the automatic retry; nil ends the job
-- failed. `stack` (nil for none) is kept with the error history entry. Appends cascaded pairs
-- to `cascaded`; returns the dead-letter job id or nil.
local function failProcessingJob(job, message, reason, retryAt, now, nowIso, cascaded, stack)
  transition(job, 'failed', now)
  local history = list(job.errorHistory)
  history[#history + 1] = { message = message, timestamp = nowIso, stack = stack }
  job.errorHistory = history
  job.failureReason = reason
  job.lastFailedAt = now
  local deadLetterId = nil
  if retryAt then
    job.nextAttemptAt = retryAt
  else
    job.nextAttemptAt = nil
    if not isnull(job.deadLetterJobType) then
      deadLetterId = createDeadLetter(job, message, reason, now, nowIso)
      job.deadLetteredAt = now
      job.deadLetterJobId = deadLetterId
    end
  end
  store(job, now, 'processing')
  addEvent(job.id, 'failed', now, '{"message":' .. json(message) .. ',"failureReason":' .. json(reason)
    .. ',"willRetry":' .. (retryAt and 'true' or 'false')
    .. ',"deadLetterJobId":' .. (deadLetterId and int(deadLetterId) or 'null') .. '}')
  if not retryAt then cascadeCancel({ job.id }, now, cascaded) end
  return deadLetterId
end
