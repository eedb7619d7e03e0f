-- Job metadata: a JSON object per job in the `jobs` hash. cjson turns an empty array into {},
-- and record.ts reads {} back as []. Payloads, outputs and step data are never decoded here.
local function loadJob(id)
  local text = redis.call('HGET', K['jobs'], int(id))
  if not text then return nil end
  return cjson.decode(text)
end

local function saveJob(job)
  local text = cjson.encode(job)
  redis.call('HSET', K['jobs'], int(job.id), text)
  return text
end
