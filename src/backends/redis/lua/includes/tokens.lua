-- Waitpoint tokens (DETAILS "Queue-level token operations"): metadata JSON in `tokens`, the
-- output verbatim in `token-outputs`. A token is open while its status is 'waiting'.

local function loadToken(id)
  local text = redis.call('HGET', K['tokens'], id)
  if not text then return nil end
  return cjson.decode(text)
end

local function saveToken(token)
  local text = cjson.encode(token)
  redis.call('HSET', K['tokens'], token.id, text)
  return text
end
