--[[
  Reads a job's event history, oldest first (in id order). Read only.
  KEYS[1] job-events, KEYS[2] events, KEYS[3] jobs, KEYS[4] added-floor
  ARGV[1] job id.
  Returns an array of event JSON texts: the events of their own, and those kept in the job's
  metadata (includes/new-job.lua, includes/events.lua). A kept `added` event has the default
  metadata, and is gone once the cleanup's floor passed it: the job is below the floor and was
  added before its time (cleanup-added-events.lua). Kept `processing` and `completed` events
  have none (null).
]]
--- @include "util"

local id = tonumber(ARGV[1])
local sid = int(id)
local events = {} -- { event id, text }

local function kept(eid, eventType, at, metadata)
  events[#events + 1] = { eid, '{"id":' .. int(eid) .. ',"jobId":' .. sid .. ',"eventType":"' .. eventType
    .. '","createdAt":' .. int(at) .. (metadata and (',"metadata":' .. metadata) or '') .. '}' }
end

local meta = redis.call('HGET', K['jobs'], sid)
-- Keys are matched in the text before anything is decoded: no object nested in the metadata
-- has these keys, so they are only ever the job's own fields.
-- Metadata that is not readable (decodeJob) keeps no event: those stored apart are all there are.
local job = meta and string.find(meta, 'EventId":', 1, true) and decodeJob(meta)
if job then
  if job.addedEventId then
    local floor = redis.call('HMGET', K['added-floor'], 'below', 'before')
    local removed = floor[1] and id < tonumber(floor[1]) and job.createdAt < tonumber(floor[2])
    if not removed then
      kept(job.addedEventId, 'added', job.createdAt, '{"jobType":' .. cjson.encode(job.jobType)
        .. ',"tags":[],"idempotencyKey":null}')
    end
  end
  if job.processingEventId then kept(job.processingEventId, 'processing', job.processingEventAt, nil) end
  if job.completedEventId then kept(job.completedEventId, 'completed', job.completedAt, nil) end
end
local p = pad(id)
local members = redis.call('ZRANGEBYLEX', K['job-events'], '[' .. p .. '\0', '(' .. p .. '\1')
if #members > 0 then
  local eventIds, fields = {}, {}
  for i, m in ipairs(members) do
    eventIds[i] = idFromMember(m)
    fields[i] = int(eventIds[i])
  end
  local texts = redis.call('HMGET', K['events'], unpack(fields))
  for i, text in ipairs(texts) do
    if text then events[#events + 1] = { eventIds[i], text } end
  end
end
table.sort(events, function(a, b) return a[1] < b[1] end)
local out = {}
for i, e in ipairs(events) do out[i] = e[2] end
return out
