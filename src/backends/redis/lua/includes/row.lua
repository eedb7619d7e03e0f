-- A job as read scripts return it: { metadata JSON, payload JSON, output JSON or false,
-- step data JSON or false } (false, not nil, keeps the reply array whole). record.ts
-- `toJobRecord` maps it. `meta` may be passed when the caller already holds the text.
--- @include "steps"

local function jobRow(id, meta)
  local sid = int(id)
  return {
    meta or redis.call('HGET', K['jobs'], sid),
    redis.call('HGET', K['payloads'], sid),
    redis.call('HGET', K['outputs'], sid),
    stepsText(id),
  }
end
