-- Deferred writes. A script that writes many jobs names the keys it never reads back before
-- it returns (deferWrites); write(), remove() and removeField() then gather the HSET/ZADD
-- arguments, ZREM members or HDEL fields per key and flushWrites() sends each key's writes as
-- one variadic command, instead of one command per job. Without deferWrites, each sends its
-- command at once. One deferred key takes one kind of command.
local deferred = {} -- key -> false (deferred, nothing gathered yet) or { cmd, args... }
local deferredKeys = {}
local FLUSH_ARGS = 4000 -- arguments per command, even (field/value, score/member pairs)
-- Run by flushWrites before it sends anything: writers that gather more than arguments (the
-- events, whose ids are taken at flush time) register here.
local flushHooks = {}

local function isDeferred(key)
  return deferred[key] ~= nil
end

local function deferWrites(keys)
  for _, key in ipairs(keys) do deferred[key] = false end
end

-- The gathered arguments of a deferred key, for `cmd`.
local function gathered(cmd, key)
  local d = deferred[key]
  if d == false then
    d = { cmd = cmd }
    deferred[key] = d
    deferredKeys[#deferredKeys + 1] = key
  elseif d.cmd ~= cmd then
    error('write: ' .. cmd .. ' after ' .. d.cmd .. ' on one deferred key')
  end
  return d
end

-- HSET key a b, or ZADD key a b.
local function write(cmd, key, a, b)
  if deferred[key] == nil then return redis.call(cmd, key, a, b) end
  local d = gathered(cmd, key)
  d[#d + 1] = a
  d[#d + 1] = b
end

-- ZREM key member.
local function remove(key, member)
  if deferred[key] == nil then return redis.call('ZREM', key, member) end
  local d = gathered('ZREM', key)
  d[#d + 1] = member
end

-- HDEL key field.
local function removeField(key, field)
  if deferred[key] == nil then return redis.call('HDEL', key, field) end
  local d = gathered('HDEL', key)
  d[#d + 1] = field
end

local function flushWrites()
  for _, hook in ipairs(flushHooks) do hook() end
  for _, key in ipairs(deferredKeys) do
    local d = deferred[key]
    for i = 1, #d, FLUSH_ARGS do
      redis.call(d.cmd, key, unpack(d, i, math.min(i + FLUSH_ARGS - 1, #d)))
    end
    deferred[key] = false
  end
  deferredKeys = {}
end
