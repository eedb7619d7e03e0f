-- Listing by a runAt range through the `run-at` index (includes/run-at.lua keeps it).

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
