-- Event history.

-- Appends an event to a job's history. `metadata` is JSON text (nil for null), spliced in
-- verbatim so payloads inside it keep their exact numbers.
local function addEvent(jobId, eventType, now, metadata)
  local eid = redis.call('INCR', K['event:id'])
  local text = '{"id":' .. int(eid) .. ',"jobId":' .. int(jobId) .. ',"eventType":"' .. eventType
    .. '","createdAt":' .. int(now) .. ',"metadata":' .. (metadata or 'null') .. '}'
  redis.call('HSET', K['events'], int(eid), text)
  redis.call('ZADD', K['job-events'], 0, pad(jobId) .. '\0' .. pad(eid))
  redis.call('ZADD', K['event-times'], now, int(eid))
end
