-- Event history.
--- @include "writes"

-- Event ids taken in advance by reserveEventIds (one INCRBY for a batch), used first.
local reservedEvents = { next = 1, last = 0 }

local function reserveEventIds(n)
  if n <= 0 then return end
  local last = redis.call('INCRBY', K['event:id'], n)
  reservedEvents.next, reservedEvents.last = last - n + 1, last
end

local function nextEventId()
  local r = reservedEvents
  if r.next > r.last then return redis.call('INCR', K['event:id']) end
  r.next = r.next + 1
  return r.next - 1
end

-- Appends an event to a job's history. `metadata` is JSON text (nil for null, then not stored),
-- spliced in verbatim so payloads inside it keep their exact numbers.
local function addEvent(jobId, eventType, now, metadata)
  local eid = nextEventId()
  local text = '{"id":' .. int(eid) .. ',"jobId":' .. int(jobId) .. ',"eventType":"' .. eventType
    .. '","createdAt":' .. int(now) .. (metadata and (',"metadata":' .. metadata) or '') .. '}'
  write('HSET', K['events'], int(eid), text)
  write('ZADD', K['job-events'], 0, pad(jobId) .. '\0' .. pad(eid))
  write('ZADD', K['event-times'], now, int(eid))
end
