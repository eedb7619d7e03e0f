--[[
  Inserts an open waitpoint token (DETAILS "Queue-level token operations"); with a timeout it
  enters `token-timeouts`, which expire-tokens scans.
  KEYS[1] tokens, KEYS[2] token-timeouts
  ARGV[1] token id; ARGV[2] token JSON (status 'waiting'); ARGV[3] timeoutAt (ms), or ''.
  Returns 1, or 0 when a token with this id already exists (nothing written).
]]
if redis.call('HEXISTS', K['tokens'], ARGV[1]) == 1 then return 0 end
redis.call('HSET', K['tokens'], ARGV[1], ARGV[2])
if ARGV[3] ~= '' then redis.call('ZADD', K['token-timeouts'], tonumber(ARGV[3]), ARGV[1]) end
return 1
