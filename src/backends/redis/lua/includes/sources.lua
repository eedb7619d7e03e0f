-- Sources of candidate job ids for listings and bulk changes by filter (includes/filter.lua).

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
