-- A job as read scripts return it: { metadata JSON, payload JSON, output JSON or false,
-- step data JSON or false } (false, not nil, keeps the reply array whole). record.ts
-- `toJobRecord` maps it. `meta` may be passed when the caller already holds the text.
-- `neverStarted`: the caller knows the job was never processing (startedAt was null), so it
-- has neither output nor step data (both are written only while a job is processing).
-- `payloadLater`: the caller fills in the payload (false until then), e.g. with one HMGET for
-- many rows.
--- @include "steps"

local function jobRow(id, meta, neverStarted, payloadLater)
  local sid = int(id)
  return {
    meta or redis.call('HGET', K['jobs'], sid),
    not payloadLater and redis.call('HGET', K['payloads'], sid) or false,
    not neverStarted and redis.call('HGET', K['outputs'], sid) or false,
    not neverStarted and stepsText(id) or false,
  }
end
