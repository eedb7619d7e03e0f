--[[
  One batch of the cleanup of the `added` events kept in job metadata (`addedEventId`,
  includes/new-job.lua; SPEC §4.9 cleanup). Walks up to ARGV[2] jobs upward from the floor in
  id order (`all`), stops at the first job added at or after ARGV[1], and raises the floor to
  it (or past the last job walked), recording ARGV[1] with it: an event is removed when its
  job is below `below` and was added before `before` (get-job-events.lua). Ids are taken as
  jobs are added, so a job below the first recent one was added before it. No job is written.
  KEYS[1] all, KEYS[2] jobs, KEYS[3] added-floor
  ARGV[1] olderThan (ms, exclusive); ARGV[2] batch size.
  Returns { removed, walked }: the events the floor passed, and the jobs it passed (the batch
  size when more may follow).
]]
--- @include "util"

local before, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local floor = redis.call('HMGET', K['added-floor'], 'below', 'before')
local below = tonumber(floor[1] or '0')
local ids = redis.call('ZRANGEBYSCORE', K['all'], below, '+inf', 'LIMIT', 0, limit)
if #ids == 0 then return { 0, 0 } end
local texts = redis.call('HMGET', K['jobs'], unpack(ids))
local removed, walked, nextBelow = 0, 0, below
for i, sid in ipairs(ids) do
  local text = texts[i]
  -- Keys are matched in the text, not decoded: a quote inside a string value is escaped, and
  -- no object nested in the metadata has these keys, so `"createdAt":` and `"addedEventId":`
  -- are only ever the job's own fields.
  local createdAt = text and tonumber(string.match(text, '"createdAt":(%d+)'))
  if createdAt and createdAt >= before then break end
  if text and string.find(text, '"addedEventId":', 1, true) then removed = removed + 1 end
  walked = i
  nextBelow = tonumber(sid) + 1
end
if nextBelow > below then
  local was = tonumber(floor[2] or '-1')
  redis.call('HSET', K['added-floor'], 'below', int(nextBelow), 'before', int(math.max(was, before)))
end
return { removed, walked }
