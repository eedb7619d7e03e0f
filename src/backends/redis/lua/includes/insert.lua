-- Inserting a job: metadata, payload and every index, plus its `added` event.
--- @include "new-job"

-- `job` is the stored metadata with `id` already allocated (newId) and status 'pending';
-- `payload` is the JSON text, stored verbatim; `added` is the `added` event's metadata text
-- ('' keeps the event in the job's metadata, includes/new-job.lua).
-- `text`, when given, is the stored metadata as the client encoded it without `id`
-- (record.ts toStoredJobText): saved as is, so `job` needs only the fields the indexes read.
local function insertJob(job, payload, now, added, text)
  local id = job.id
  local pid = pad(id)
  writeNewJob(job, payload, now, added)
  -- Most jobs have none of these: tested before list(), which would make an empty table each.
  if job.tags then
    for _, tag in ipairs(list(job.tags)) do write('ZADD', K['tags'], 0, tag .. '\0' .. pid) end
  end
  if job.dependsOnTags then
    for _, tag in ipairs(list(job.dependsOnTags)) do write('ZADD', K['tag-deps'], 0, tag .. '\0' .. pid) end
  end
  if job.dependsOnJobIds then
    for _, dep in ipairs(list(job.dependsOnJobIds)) do write('ZADD', K['deps'], 0, pad(dep) .. '\0' .. pid) end
  end
  if not isnull(job.idempotencyKey) then write('HSET', K['idem'], job.idempotencyKey, int(id)) end
  store(job, now, 'new', text and withId(job, text))
  return id
end
