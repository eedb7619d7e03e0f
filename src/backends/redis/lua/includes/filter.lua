-- Job queries (SPEC §2.7): which jobs match a filter, and the ids of matching jobs, newest
-- first. A query is decoded JSON { status?, jobType?, priority?, runAt?: { eq?, gt?, gte?,
-- lt?, lte? } (ms), tags?: { values, mode } }.

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

-- A source of candidate ids, newest first: a whole sorted set (scored by id), or one value's
-- range of a `<value>\0<pad id>` index. `fetch(start, n)` reads by rank (O(log n + n), for
-- jumping to an offset); `fetchBefore(before, n)` reads the n newest ids below `before` (nil:
-- from the newest), the cursor of a sliced walk.
local function setSource(key)
  local function ids(members)
    for i, m in ipairs(members) do members[i] = tonumber(m) end
    return members
  end
  return {
    count = redis.call('ZCARD', key),
    fetch = function(start, n)
      return ids(redis.call('ZREVRANGE', key, start, start + n - 1))
    end,
    fetchBefore = function(before, n)
      local max = before and '(' .. int(before) or '+inf'
      return ids(redis.call('ZREVRANGEBYSCORE', key, max, '-inf', 'LIMIT', 0, n))
    end,
  }
end

local function lexSource(key, value)
  local min, max = '[' .. value .. '\0', '(' .. value .. '\1'
  local function ids(members)
    for i, m in ipairs(members) do members[i] = idFromMember(m) end
    return members
  end
  return {
    count = redis.call('ZLEXCOUNT', key, min, max),
    fetch = function(start, n)
      -- By rank: the members after the range come first in reverse order.
      local above = redis.call('ZLEXCOUNT', key, max, '+')
      local first = above + start
      local last = math.min(first + n, above + redis.call('ZLEXCOUNT', key, min, max)) - 1
      if last < first then return {} end
      return ids(redis.call('ZREVRANGE', key, first, last))
    end,
    fetchBefore = function(before, n)
      local upper = before and '(' .. value .. '\0' .. pad(before) or max
      return ids(redis.call('ZREVRANGEBYLEX', key, upper, min, 'LIMIT', 0, n))
    end,
  }
end

-- The smallest index that the query pins down, and whether that index is the whole query
-- (then jobs need not even be decoded).
local function bestSource(q)
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
  return best, exact
end

-- One bounded slice of a walk over the jobs matching `q`, newest first: examines at most
-- `budget` candidates with an id below `cursor` (nil: from the newest), skips the first `skip`
-- matches and keeps at most `limit` (nil: all) of the rest. Returns the kept ids, the number of
-- matches skipped, and the cursor of the next slice (0 when the walk is over). A query its index
-- answers exactly starts at the offset by rank, so a deep offset costs no walk.
local function sliceIds(q, cursor, budget, skip, limit)
  local source, exact = bestSource(q)
  local out = {}
  if limit == 0 then return out, 0, 0 end
  if exact and not cursor then
    -- By rank, whatever the offset; at most `budget` ids, the walk goes on from the last.
    local want = math.min(limit or budget, budget)
    local ids = source.fetch(skip, want)
    local more = #ids == want and not (limit and #ids >= limit)
    return ids, math.max(0, math.min(skip, source.count)), more and ids[#ids] or 0
  end
  local skipped = 0
  local page = source.fetchBefore(cursor, budget)
  for _, id in ipairs(page) do
    local ok = exact
    if not ok then
      local job = loadJob(id)
      ok = job ~= nil and matches(job, q)
    end
    if ok then
      if skipped < skip then
        skipped = skipped + 1
      else
        out[#out + 1] = id
        if limit and #out >= limit then return out, skipped, 0 end
      end
    end
  end
  return out, skipped, (#page < budget) and 0 or page[#page]
end
