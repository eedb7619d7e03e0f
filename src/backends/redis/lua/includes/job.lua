-- Job metadata: a JSON object per job in the `jobs` hash. cjson turns an empty array into {},
-- and record.ts reads {} back as []. Payloads, outputs and step data are never decoded here.
-- Fields that are null or an empty array are not stored: record.ts reads an absent field as
-- null or its default, and isnull()/list() read it so here. Scripts clear a field by setting
-- it to nil, and a value from the client goes through leanValue, so a job is saved as it is,
-- without a pass over its fields; loadJob drops those of a job an earlier layout saved.
--- @include "writes"
-- A field's value as stored: nil (not stored) for null or an empty array.
local function leanValue(value)
  if value == NULL or (type(value) == 'table' and next(value) == nil) then return nil end
  return value
end

-- The ids of the jobs loadJob found unreadable (decodeJob). It returns nil for each, as for a
-- job that is gone, so no walk (a claim, a promotion, a reclaim, a cleanup, a release) stops at
-- one job written or damaged outside the queue; a claim returns them to be reported.
local unreadableJobs = {}

local function loadJob(id)
  local text = redis.call('HGET', K['jobs'], int(id))
  if not text then return nil end
  local job = decodeJob(text)
  if not job then
    unreadableJobs[#unreadableJobs + 1] = id
    return nil
  end
  -- Only a job saved by an earlier layout holds a null field or an empty array (or a string
  -- that looks like one, which costs this pass and nothing else): dropped here, so its next
  -- save writes it lean. A plain search of the text costs far less than the pass.
  if string.find(text, 'null', 1, true) or string.find(text, '{}', 1, true) or string.find(text, '[]', 1, true) then
    for field, value in pairs(job) do job[field] = leanValue(value) end
  end
  return job
end

-- `text`, when given, is the job's JSON text already encoded (a new job the client encoded):
-- saved as is.
local function saveJob(job, text)
  if text then
    write('HSET', K['jobs'], int(job.id), text)
    return text
  end
  local text = cjson.encode(job)
  write('HSET', K['jobs'], int(job.id), text)
  return text
end
