-- Cron schedules (SPEC §2.9, §4.4): metadata JSON in `cron` (numbers are ids, counters and ms
-- times, exact under cjson; the float retry options are decimal text), the payload verbatim
-- in `cron-payloads`, names in `cron-names`, active schedules in `cron-due` by nextRunAt.

local function loadSchedule(id)
  local text = redis.call('HGET', K['cron'], int(id))
  if not text then return nil end
  return cjson.decode(text)
end

-- Saves the schedule and its `cron-due` entry (present exactly while it is active).
local function saveSchedule(s)
  local text = cjson.encode(s)
  redis.call('HSET', K['cron'], int(s.id), text)
  if s.status == 'active' then
    redis.call('ZADD', K['cron-due'], s.nextRunAt, pad(s.id))
  else
    redis.call('ZREM', K['cron-due'], pad(s.id))
  end
  return text
end
