-- Inserting a job: metadata, payload and every index, plus its `added` event.

local function newId()
  return redis.call('INCR', K['id'])
end

-- `job` is the stored metadata with `id` already allocated (newId) and status 'pending';
-- `payload` is the JSON text, stored verbatim; `added` is the `added` event's metadata text.
local function insertJob(job, payload, now, added)
  local id = job.id
  local sid = int(id)
  local pid = pad(id)
  redis.call('HSET', K['payloads'], sid, payload)
  redis.call('HSET', K['claim-hints'], sid, claimHint(job))
  redis.call('ZADD', K['all'], id, sid)
  redis.call('ZADD', K['status:pending'], id, sid)
  redis.call('ZADD', K['types'], 0, job.jobType .. '\0' .. pid)
  for _, tag in ipairs(list(job.tags)) do redis.call('ZADD', K['tags'], 0, tag .. '\0' .. pid) end
  for _, tag in ipairs(list(job.dependsOnTags)) do redis.call('ZADD', K['tag-deps'], 0, tag .. '\0' .. pid) end
  for _, dep in ipairs(list(job.dependsOnJobIds)) do redis.call('ZADD', K['deps'], 0, pad(dep) .. '\0' .. pid) end
  if not isnull(job.idempotencyKey) then redis.call('HSET', K['idem'], job.idempotencyKey, sid) end
  store(job, now)
  addEvent(id, 'added', now, added)
  return id
end
