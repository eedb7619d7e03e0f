-- Event history.
--- @include "writes"

-- Events a script defers (deferWrites with `events`) wait here until flushWrites, which takes
-- their ids with one INCRBY and writes them in order.
local queuedEvents = {}

local function writeEvent(eid, jobId, eventType, now, metadata)
  local id, at = int(eid), int(now)
  local text = '{"id":' .. id .. ',"jobId":' .. int(jobId) .. ',"eventType":"' .. eventType
    .. '","createdAt":' .. at .. (metadata and (',"metadata":' .. metadata) or '') .. '}'
  write('HSET', K['events'], id, text)
  write('ZADD', K['job-events'], '0', pad(jobId) .. '\0' .. pad(eid))
  write('ZADD', K['event-times'], at, id)
end

-- Appends an event to a job's history. `metadata` is JSON text (nil for null, then not stored),
-- spliced in verbatim so payloads inside it keep their exact numbers.
local function addEvent(jobId, eventType, now, metadata)
  if isDeferred(K['events']) then
    queuedEvents[#queuedEvents + 1] = { jobId, eventType, now, metadata }
  else
    writeEvent(redis.call('INCR', K['event:id']), jobId, eventType, now, metadata)
  end
end

flushHooks[#flushHooks + 1] = function()
  local n = #queuedEvents
  if n == 0 then return end
  local first = redis.call('INCRBY', K['event:id'], n) - n + 1
  for i, e in ipairs(queuedEvents) do writeEvent(first + i - 1, e[1], e[2], e[3], e[4]) end
  queuedEvents = {}
end
