-- Step data (durable `ctx.run` results, DETAILS "Handler context"): one `steps` field per step,
-- `<pad id>\0<step name>`, holding the value's JSON text verbatim; `step-names` lists a job's
-- fields by range. Values are never decoded (cjson would round numbers to 14 digits): a step is
-- merged by writing its own field, and the object is assembled as text.
local STEP_CHUNK = 1000 -- fields per HMGET/HDEL, well under Lua's unpack limit

local function stepFields(id)
  local p = pad(id)
  return redis.call('ZRANGEBYLEX', K['step-names'], '[' .. p .. '\0', '(' .. p .. '\1')
end

-- Stores step `name` of job `id`, replacing an earlier value of the same step.
local function saveStepValue(id, name, valueText)
  local field = pad(id) .. '\0' .. name
  redis.call('HSET', K['steps'], field, valueText)
  redis.call('ZADD', K['step-names'], 0, field)
end

-- The job's step data as JSON object text (names in text order), or false when it has none
-- (false, not nil, so it can sit inside a reply array).
local function stepsText(id)
  local fields = stepFields(id)
  if #fields == 0 then return false end
  local parts = {}
  for from = 1, #fields, STEP_CHUNK do
    local to = math.min(from + STEP_CHUNK - 1, #fields)
    local values = redis.call('HMGET', K['steps'], unpack(fields, from, to))
    for i = from, to do
      local name = string.sub(fields[i], ID_WIDTH + 2)
      parts[i] = cjson.encode(name) .. ':' .. (values[i - from + 1] or 'null')
    end
  end
  return '{' .. table.concat(parts, ',') .. '}'
end

-- Removes every step of job `id`.
local function clearSteps(id)
  local fields = stepFields(id)
  if #fields == 0 then return end
  for from = 1, #fields, STEP_CHUNK do
    redis.call('HDEL', K['steps'], unpack(fields, from, math.min(from + STEP_CHUNK - 1, #fields)))
  end
  local p = pad(id)
  redis.call('ZREMRANGEBYLEX', K['step-names'], '[' .. p .. '\0', '(' .. p .. '\1')
end
