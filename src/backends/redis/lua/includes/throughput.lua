-- Throughput counters (src/overview.ts): the attempts that ended, per minute of `now`, in the
-- `throughput` hash, fields `<minute>:completed` and `<minute>:failed`. The first count of a
-- minute and kind removes the fields of minutes that have left the kept hour, so the hash holds
-- about an hour of minutes whatever runs (and the supervisor need not trim it). It also sets the
-- key to expire an hour after that count (so about an hour after the last one): once nothing
-- runs, the key goes by itself. One HINCRBY per call otherwise.

-- THROUGHPUT_KEEP_MINUTES of src/overview.ts (src/overview.test.ts compares them).
local THROUGHPUT_KEEP_MINUTES = 61

-- Removes the fields of minutes before `oldest` (whole minutes since the epoch); returns how
-- many went. The hash holds about 2 x THROUGHPUT_KEEP_MINUTES fields, so this is bounded.
local function trimThroughput(oldest)
  local stale = {}
  for _, field in ipairs(redis.call('HKEYS', K['throughput'])) do
    local minute = tonumber(string.match(field, '^(%d+):'))
    if minute and minute < oldest then stale[#stale + 1] = field end
  end
  if #stale > 0 then redis.call('HDEL', K['throughput'], unpack(stale)) end
  return #stale
end

-- Adds `n` attempts that ended as `kind` ('completed' or 'failed') at `now` (ms).
local function countAttempts(kind, n, now)
  if n <= 0 then return end
  local minute = math.floor(now / 60000)
  if redis.call('HINCRBY', K['throughput'], int(minute) .. ':' .. kind, n) == n then
    trimThroughput(minute - THROUGHPUT_KEEP_MINUTES + 1)
    redis.call('PEXPIRE', K['throughput'], (THROUGHPUT_KEEP_MINUTES + 1) * 60000)
  end
end
