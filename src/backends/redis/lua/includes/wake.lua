-- The wake-up signal for idle processors: a message on the queue's `wake` channel, which every
-- subscribed queue hears (subscribe.ts). With nobody subscribed it costs the PUBLISH alone.
local function signalWake()
  redis.call('PUBLISH', K['wake'], '1')
end
