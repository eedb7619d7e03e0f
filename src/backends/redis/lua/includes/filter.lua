-- Job queries (SPEC §2.7): which jobs match a filter, and the ids of matching jobs, newest
-- first. A query is decoded JSON { status?, jobType?, priority?, runAt?: { eq?, gt?, gte?,
-- lt?, lte? } (ms), tags?: { values, mode } }.
local SCAN_CHUNK = 500

local function tagsMatch(jobTags, values, mode)
  local have = {}
  local count = 0
  for _, t in ipairs(list(jobTags)) do
    if not have[t] then have[t] = true count = count + 1 end
  end
  local hits = 0
  for _, v in ipairs(values) do
    if have[v] then hits = hits + 1 end
  end
  if mode == 'any' then return hits > 0 end
  if mode == 'none' then return hits == 0 end
  if mode == 'exact' then return hits == #values and count == #values end
  return hits == #values
end

local function matches(job, q)
  if q.status and job.status ~= q.status then return false end
  if q.jobType and job.jobType ~= q.jobType then return false end
  if q.priority and job.priority ~= q.priority then return false end
  local r = q.runAt
  if r then
    local t = job.runAt
    if r.eq and t ~= r.eq then return false end
    if r.gt and not (t > r.gt) then return false end
    if r.gte and not (t >= r.gte) then return false end
    if r.lt and not (t < r.lt) then return false end
    if r.lte and not (t <= r.lte) then return false end
  end
  if q.tags and not tagsMatch(job.tags, list(q.tags.values), q.tags.mode or 'all') then return false end
  return true
end

-- A source of candidate ids, newest first: a whole sorted set, or one value's range of a
-- `<value>\0<pad id>` index.
local function setSource(key)
  return {
    count = redis.call('ZCARD', key),
    fetch = function(start, n)
      local ids = redis.call('ZREVRANGE', key, start, start + n - 1)
      for i, m in ipairs(ids) do ids[i] = tonumber(m) end
      return ids
    end,
  }
end

local function lexSource(key, value)
  local min, max = '[' .. value .. '\0', '(' .. value .. '\1'
  return {
    count = redis.call('ZLEXCOUNT', key, min, max),
    fetch = function(start, n)
      local ids = redis.call('ZREVRANGEBYLEX', key, max, min, 'LIMIT', start, n)
      for i, m in ipairs(ids) do ids[i] = idFromMember(m) end
      return ids
    end,
  }
end

-- Ids of the jobs matching `q`, newest first, after skipping `offset` matches, at most
-- `limit` (nil: all). Candidates come from the smallest index that the query pins down; when
-- that index is the whole query, jobs are not even decoded.
local function selectIds(q, limit, offset)
  local constraints = 0
  for _, name in ipairs({ 'status', 'jobType', 'priority', 'runAt', 'tags' }) do
    if q[name] then constraints = constraints + 1 end
  end
  local best, exact = setSource(K['all']), constraints == 0
  local function consider(source, alone)
    if source.count < best.count or (alone and source.count == best.count) then
      best = source
      exact = alone and constraints == 1
    end
  end
  if q.status then consider(setSource(K['status:' .. q.status]), true) end
  if q.jobType then consider(lexSource(K['types'], q.jobType), true) end
  local mode = q.tags and (q.tags.mode or 'all')
  if mode == 'all' or mode == 'exact' then
    for _, t in ipairs(list(q.tags.values)) do consider(lexSource(K['tags'], t), false) end
  end

  local out, skipped, start = {}, 0, 0
  if limit == 0 then return out end
  while true do
    local page = best.fetch(start, SCAN_CHUNK)
    if #page == 0 then return out end
    start = start + #page
    for _, id in ipairs(page) do
      local ok = exact
      if not ok then
        local job = loadJob(id)
        ok = job ~= nil and matches(job, q)
      end
      if ok then
        if skipped < offset then
          skipped = skipped + 1
        else
          out[#out + 1] = id
          if limit and #out >= limit then return out end
        end
      end
    end
  end
end
