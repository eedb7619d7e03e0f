-- { schedule JSON, payload JSON } as read scripts return a schedule.
local function scheduleRow(id, meta)
  local sid = int(id)
  return { meta or redis.call('HGET', K['cron'], sid), redis.call('HGET', K['cron-payloads'], sid) }
end
