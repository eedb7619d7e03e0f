-- The wake-up signal for idle processors (subscribe.ts blocks on it).
-- Wakes one idle processor blocked on the wake list; the list never grows past one entry.
-- When an idle processor has taken the last entry (the list is empty), the push is all it costs.
local function signalWake()
  if redis.call('LPUSH', K['wake'], '1') > 1 then redis.call('LTRIM', K['wake'], 0, 0) end
end
