-- Inserting a job: metadata, payload and every index, plus its `added` event.
--- @include "writes"
--- @include "run-at"

local function newId()
  return redis.call('INCR', K['id'])
end

-- `job` is the stored metadata with `id` already allocated (newId) and status 'pending';
-- `payload` is the JSON text, stored verbatim; `added` is the `added` event's metadata text.
local function insertJob(job, payload, now, added)
  local id = job.id
  local sid = int(id)
  local pid = pad(id)
  write('HSET', K['payloads'], sid, payload)
  write('ZADD', K['all'], id, sid)
  write('ZADD', K['status:pending'], id, sid)
  write('ZADD', K['types'], 0, job.jobType .. '\0' .. pid)
  for _, tag in ipairs(list(job.tags)) do write('ZADD', K['tags'], 0, tag .. '\0' .. pid) end
  for _, tag in ipairs(list(job.dependsOnTags)) do write('ZADD', K['tag-deps'], 0, tag .. '\0' .. pid) end
  for _, dep in ipairs(list(job.dependsOnJobIds)) do write('ZADD', K['deps'], 0, pad(dep) .. '\0' .. pid) end
  if not isnull(job.idempotencyKey) then write('HSET', K['idem'], job.idempotencyKey, sid) end
  indexRunAt(job)
  store(job, now, 'new')
  addEvent(id, 'added', now, added)
  return id
end
