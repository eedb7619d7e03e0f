-- Job queries (SPEC §2.7): which jobs match a filter, and the ids of matching jobs, newest
-- first. A query is decoded JSON { status?, jobType?, jobTypePrefix?, priority?, runAt?: { eq?,
-- gt?, gte?, lt?, lte? } (ms), tags?: { values, mode } }.

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
  if q.jobTypePrefix and string.sub(job.jobType, 1, #q.jobTypePrefix) ~= q.jobTypePrefix then return false end
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

--- @include "sources"
--- @include "run-at-range"
--- @include "type-prefix"

-- Candidates checked by their `run-at` score, or taken unchecked, per candidate a slice would
-- decode.
local CHEAP_CHECKS = 4

-- A type prefix is served by the union of its types' ranges of `types` when it has at most
-- this many types; past that, the prefix is checked on each candidate.
local PREFIX_SOURCE_TYPES = 50

-- The smallest index that the query pins down, and how to check its candidates: nil when
-- that index is the whole query (then jobs need not even be decoded), a check by the `run-at`
-- score when runAt is all that is left, or else a check of the decoded job.
local function bestSource(q)
  local pending = {}
  for _, name in ipairs({ 'status', 'jobType', 'jobTypePrefix', 'priority', 'runAt', 'tags' }) do
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
  if q.jobTypePrefix then
    local types, more = typesWithPrefix(q.jobTypePrefix, PREFIX_SOURCE_TYPES)
    if not more then consider(unionSource(K['types'], types), 'jobTypePrefix') end
  end
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
-- answers exactly starts at the offset by rank, so a deep offset costs no walk. `extra`, when
-- given, is a further test of the jobs matching `q`: { test(id) -> boolean, over() -> boolean,
-- true once the walk must end there }.
local function sliceIds(q, cursor, budget, skip, limit, extra)
  local source, check, cheap = bestSource(q)
  if extra then
    local base = check
    check = function(id) return (not base or base(id)) and extra.test(id) end
    cheap = false
  end
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
    if extra and extra.over() then return out, skipped, 0 end
  end
  return out, skipped, (done or #page == 0) and 0 or page[#page]
end

-- The jobs a retry, cancel or edit considers (manage.ts selectorArgs): ARGV[2] one job's id, or,
-- when it is '', the jobs of `status` matching the filter ARGV[3], one slice of them from the
-- cursor ARGV[cursorAt] ('' for the first) examining at most ARGV[cursorAt + 1] candidates.
-- Returns the ids and the next cursor (0 when no slice is left, and for a single id).
local function selectedIds(status, cursorAt)
  if ARGV[2] ~= '' then return { tonumber(ARGV[2]) }, 0 end
  local query = cjson.decode(ARGV[3])
  query.status = status
  local ids, _, next = sliceIds(query, tonumber(ARGV[cursorAt]), tonumber(ARGV[cursorAt + 1]), 0, nil)
  return ids, next
end
