-- Job metadata: a JSON object per job in the `jobs` hash. cjson turns an empty array into {},
-- and record.ts reads {} back as []. Payloads, outputs and step data are never decoded here.
-- Fields that are null or an empty array are not stored: record.ts reads an absent
-- field as null or its default, and isnull()/list() read it so here.
--- @include "writes"
local function loadJob(id)
  local text = redis.call('HGET', K['jobs'], int(id))
  if not text then return nil end
  return cjson.decode(text)
end

-- `text`, when given, is the job's JSON text already encoded (a new job the client encoded):
-- saved as is.
local function saveJob(job, text)
  if text then
    write('HSET', K['jobs'], int(job.id), text)
    return text
  end
  for field, value in pairs(job) do
    if value == NULL or (type(value) == 'table' and next(value) == nil) then job[field] = nil end
  end
  local text = cjson.encode(job)
  write('HSET', K['jobs'], int(job.id), text)
  return text
end
