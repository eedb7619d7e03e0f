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

-- Event ids taken ahead for the events a script keeps in job metadata, so that a script keeping
-- several takes their ids with one INCRBY.
local keptEventIds = { nextId = 0, lastId = -1 }

local function reserveKeptEventIds(n)
  if n <= 0 then return end
  local last = redis.call('INCRBY', K['event:id'], n)
  keptEventIds.nextId, keptEventIds.lastId = last - n + 1, last
end

-- The next id taken ahead; when none is left, takes `ahead` ids (1 when not given): the events
-- the caller may still keep in this script. An id taken ahead and not used is left out of the
-- sequence (ids are unique and ordered, not contiguous).
local function keptEventId(ahead)
  if keptEventIds.nextId > keptEventIds.lastId then reserveKeptEventIds(ahead or 1) end
  local id = keptEventIds.nextId
  keptEventIds.nextId = id + 1
  return id
end

-- The `processing` event of the attempt a claim starts and the `completed` event that ends it
-- are kept in the job's metadata (`processingEventId` with `processingEventAt`, and
-- `completedEventId` at `completedAt`) instead of the three entries of an event of their own,
-- as the `added` event is (includes/new-job.lua): a drain then writes no event entry at all.
-- get-job-events.lua gives them back in id order; cleanup-kept-events.lua removes them.

-- A job leaving processing other than completed (failed, requeued, waiting): its kept
-- `processing` event becomes an event of its own, with its id and time, so that the next
-- attempt can keep its own.
local function releaseProcessingEvent(job)
  if isnull(job.processingEventId) then return end
  writeEvent(job.processingEventId, job.id, 'processing', job.processingEventAt, nil)
  job.processingEventId = nil
  job.processingEventAt = nil
end

-- `ahead`: as for keptEventId. A kept event still there is one that an earlier version, which
-- does not release it when the job leaves processing, left behind: written out first.
local function keepProcessingEvent(job, now, ahead)
  releaseProcessingEvent(job)
  job.processingEventId = keptEventId(ahead)
  job.processingEventAt = now
end

local function keepCompletedEvent(job, ahead)
  job.completedEventId = keptEventId(ahead)
end
