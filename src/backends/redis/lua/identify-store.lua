--[[
  Reads the store's identity, writing it on first use (identity.ts): `meta` holds a random
  store id and the time it was created. Raises the job and schedule id counters to at least
  the given ids, so a queue that found its store wiped never hands out an id it had seen.
  KEYS[1] meta, KEYS[2] id, KEYS[3] cron:id
  ARGV[1] a fresh random store id, stored only when none is; ARGV[2] now (ms);
  ARGV[3] the highest job id the queue has seen (0 for none); ARGV[4] the highest schedule id.
  Returns { store id, last job id, last schedule id }.
]]
if redis.call('HEXISTS', K['meta'], 'storeId') == 0 then
  redis.call('HSET', K['meta'], 'storeId', ARGV[1], 'createdAt', ARGV[2])
end
local function atLeast(key, floor)
  local current = tonumber(redis.call('GET', key) or '0')
  if current < floor then
    redis.call('SET', key, floor)
    return floor
  end
  return current
end
local lastJob = atLeast(K['id'], tonumber(ARGV[3]))
local lastSchedule = atLeast(K['cron:id'], tonumber(ARGV[4]))
return { redis.call('HGET', K['meta'], 'storeId'), lastJob, lastSchedule }
