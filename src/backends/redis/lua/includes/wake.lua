-- The wake-up signal for idle processors: a message on the queue's `wake` channel, which every
-- subscribed queue hears (subscribe.ts). With nobody subscribed it costs the PUBLISH alone. A
-- server whose ACL denies the user this channel (Redis 7 gives a new user no channels) refuses
-- the PUBLISH: the job is added all the same, and processors find it by polling.
local function signalWake()
  redis.pcall('PUBLISH', K['wake'], '1')
end
