-- The wake-up signal for idle processors (subscribe.ts blocks on it).
-- Wakes one idle processor blocked on the wake list; the list never grows past one entry.
local function signalWake()
  redis.call('LPUSH', K['wake'], '1')
  redis.call('LTRIM', K['wake'], 0, 0)
end
