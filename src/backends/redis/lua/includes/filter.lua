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

-- A source of candidate ids, newest first: a whole sorted set (scored by id), one value's
-- range of a `<value>\0<pad id>` index, or the union of several values' ranges (tags in `any`
-- mode). `fetchBefore(before, n)` reads about n of the newest ids below `before` (nil: from the
-- newest), the cursor of a sliced walk, and says whether the source is exhausted below them;
-- `fetch(start, n)`, where a source has one, reads by rank (O(log n + n), for jumping to an
-- offset). `count` is the number of ids (for a union: an upper bound).
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
      local page = ids(redis.call('ZREVRANGEBYSCORE', key, max, '-inf', 'LIMIT', 0, n))
      return page, #page < n
    end,
  }
end

-- The newest `n` ids of one value's range of a lex index below `before` (nil: from the newest).
local function lexBefore(key, value, before, n)
  local upper = before and '(' .. value .. '\0' .. pad(before) or '(' .. value .. '\1'
  local members = redis.call('ZREVRANGEBYLEX', key, upper, '[' .. value .. '\0', 'LIMIT', 0, n)
  for i, m in ipairs(members) do members[i] = idFromMember(m) end
  return members
end

local function lexSource(key, value)
  local min, max = '[' .. value .. '\0', '(' .. value .. '\1'
  return {
    count = redis.call('ZLEXCOUNT', key, min, max),
    fetch = function(start, n)
      -- By rank: the members after the range come first in reverse order.
      local above = redis.call('ZLEXCOUNT', key, max, '+')
      local first = above + start
      local last = math.min(first + n, above + redis.call('ZLEXCOUNT', key, min, max)) - 1
      if last < first then return {} end
      local members = redis.call('ZREVRANGE', key, first, last)
      for i, m in ipairs(members) do members[i] = idFromMember(m) end
      return members
    end,
    fetchBefore = function(before, n)
      local page = lexBefore(key, value, before, n)
      return page, #page < n
    end,
  }
end

-- The union of several values' ranges of a lex index, newest first, without duplicates. A
-- slice reads about n/#values ids of each range; every id at or above the highest last id of
-- a range that filled its share is then known (lower ones may lie in that range's unread
-- part), so the slice keeps those and the next goes on below them. Work per slice: about n
-- index entries, whatever the sizes of the ranges.
local function unionSource(key, values)
  local distinct, seen = {}, {}
  for _, v in ipairs(values) do
    if not seen[v] then seen[v] = true distinct[#distinct + 1] = v end
  end
  local count = 0
  for _, v in ipairs(distinct) do
    count = count + redis.call('ZLEXCOUNT', key, '[' .. v .. '\0', '(' .. v .. '\1')
  end
  return {
    count = count,
    fetchBefore = function(before, n)
      local share = math.max(1, math.ceil(n / math.max(1, #distinct)))
      local floor, ids, have = nil, {}, {}
      for _, v in ipairs(distinct) do
        local part = lexBefore(key, v, before, share)
        if #part == share and (not floor or part[#part] > floor) then floor = part[#part] end
        for _, id in ipairs(part) do
          if not have[id] then have[id] = true ids[#ids + 1] = id end
        end
      end
      table.sort(ids, function(a, b) return a > b end)
      if not floor then return ids, true end
      local page = {}
      for _, id in ipairs(ids) do
        if id < floor then break end
        page[#page + 1] = id
      end
      return page, false
    end,
  }
end

-- A runAt range as ZRANGEBYSCORE bounds: the tightest of eq/gt/gte and of eq/lt/lte.
local function runAtBounds(r)
  local lo, loOpen, hi, hiOpen = nil, false, nil, false
  local function raise(v, open)
    if v and (not lo or v > lo or (v == lo and open)) then lo, loOpen = v, open end
  end
  local function lower(v, open)
    if v and (not hi or v < hi or (v == hi and open)) then hi, hiOpen = v, open end
  end
  raise(r.eq, false)
  raise(r.gte, false)
  raise(r.gt, true)
  lower(r.eq, false)
  lower(r.lte, false)
  lower(r.lt, true)
  local min = lo and ((loOpen and '(' or '') .. int(lo)) or '-inf'
  local max = hi and ((hiOpen and '(' or '') .. int(hi)) or '+inf'
  return min, max
end

-- The `run-at` index holds every job, unless the store was written before it existed (then
-- listings by runAt walk the jobs as before, until those older jobs are cleaned up).
local function runAtIndexed()
  return redis.call('ZCARD', K['run-at']) == redis.call('ZCARD', K['all'])
end

-- Most ids of a runAt range that a slice reads whole and sorts newest first; a wider range
-- matches so many jobs that a walk newest first fills a page within few candidates.
local RANGE_READ = 2000
-- Candidates checked by their `run-at` score, or taken unchecked, per candidate a slice would
-- decode.
local CHEAP_CHECKS = 4

-- The jobs of a runAt range of at most RANGE_READ ids, newest first.
local function rangeSource(min, max, count)
  return {
    count = count,
    fetchBefore = function(before, n)
      local ids = {}
      for _, m in ipairs(redis.call('ZRANGEBYSCORE', K['run-at'], min, max)) do
        local id = tonumber(m)
        if not before or id < before then ids[#ids + 1] = id end
      end
      table.sort(ids, function(a, b) return a > b end)
      local page = {}
      for i = 1, math.min(n, #ids) do page[i] = ids[i] end
      return page, #ids <= n
    end,
  }
end

-- A check of a walk's candidate against the runAt range by its `run-at` score, without
-- decoding the job.
local function runAtCheck(min, max)
  local function above(score, bound)
    if bound == '-inf' then return true end
    if string.sub(bound, 1, 1) == '(' then return score > tonumber(string.sub(bound, 2)) end
    return score >= tonumber(bound)
  end
  local function below(score, bound)
    if bound == '+inf' then return true end
    if string.sub(bound, 1, 1) == '(' then return score < tonumber(string.sub(bound, 2)) end
    return score <= tonumber(bound)
  end
  return function(id)
    local score = tonumber(redis.call('ZSCORE', K['run-at'], int(id)))
    return score ~= nil and above(score, min) and below(score, max)
  end
end

-- The smallest index that the query pins down, and how to check its candidates: nil when
-- that index is the whole query (then jobs need not even be decoded), a check by the `run-at`
-- score when runAt is all that is left, or else a check of the decoded job.
local function bestSource(q)
  local pending = {}
  for _, name in ipairs({ 'status', 'jobType', 'priority', 'runAt', 'tags' }) do
    if q[name] then pending[#pending + 1] = name end
  end
  local best, served = setSource(K['all']), nil
  -- `serves`: the one constraint the source answers exactly, or nil for a partial one.
  local function consider(source, serves)
    if source.count < best.count or (serves and source.count == best.count) then
      best, served = source, serves
    end
  end
  if q.status then consider(setSource(K['status:' .. q.status]), 'status') end
  if q.jobType then consider(lexSource(K['types'], q.jobType), 'jobType') end
  local mode = q.tags and (q.tags.mode or 'all')
  if mode == 'all' or mode == 'exact' then
    for _, t in ipairs(list(q.tags.values)) do consider(lexSource(K['tags'], t), nil) end
  elseif mode == 'any' then
    consider(unionSource(K['tags'], list(q.tags.values)), 'tags')
  end
  local indexed = q.runAt and runAtIndexed()
  local min, max
  if indexed then
    min, max = runAtBounds(q.runAt)
    local count = redis.call('ZCOUNT', K['run-at'], min, max)
    if count <= RANGE_READ then consider(rangeSource(min, max, count), 'runAt') end
  end
  local left = {}
  for _, name in ipairs(pending) do
    if name ~= served then left[#left + 1] = name end
  end
  if #left == 0 then return best, nil end
  if #left == 1 and left[1] == 'runAt' and indexed then return best, runAtCheck(min, max), true end
  return best, function(id)
    local job = loadJob(id)
    return job ~= nil and matches(job, q)
  end
end

-- One bounded slice of a walk over the jobs matching `q`, newest first: examines about
-- `budget` candidates with an id below `cursor` (nil: from the newest), skips the first `skip`
-- matches and keeps at most `limit` (nil: all) of the rest. Returns the kept ids, the number of
-- matches skipped, and the cursor of the next slice (0 when the walk is over). A query its index
-- answers exactly starts at the offset by rank, so a deep offset costs no walk.
local function sliceIds(q, cursor, budget, skip, limit)
  local source, check, cheap = bestSource(q)
  local out = {}
  if limit == 0 then return out, 0, 0 end
  if not check and source.fetch and not cursor then
    -- By rank, whatever the offset; at most `budget` ids, the walk goes on from the last.
    local want = math.min(limit or budget, budget)
    local ids = source.fetch(skip, want)
    local more = #ids == want and not (limit and #ids >= limit)
    return ids, math.max(0, math.min(skip, source.count)), more and ids[#ids] or 0
  end
  -- A candidate checked by its index score, or taken unchecked, costs a fraction of decoding
  -- a job: a slice reads so many more, and keeps at most `budget` of them.
  local size = (not check or cheap) and budget * CHEAP_CHECKS or budget
  local skipped = 0
  local page, done = source.fetchBefore(cursor, size)
  for _, id in ipairs(page) do
    if not check or check(id) then
      if skipped < skip then
        skipped = skipped + 1
      else
        out[#out + 1] = id
        if limit and #out >= limit then return out, skipped, 0 end
        if #out >= budget then return out, skipped, id end
      end
    end
  end
  return out, skipped, (done or #page == 0) and 0 or page[#page]
end
