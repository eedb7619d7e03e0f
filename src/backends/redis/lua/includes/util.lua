-- Shared helpers that touch no key: null checks, number formatting, sorted-set members.
local NULL = cjson.null
local ID_WIDTH = 15

local function isnull(v)
  return v == nil or v == NULL
end

-- A function formatting its number with `pattern`, each text remembered for the rest of the
-- script: a script formats the same ids and times several times over, and a table lookup
-- costs far less than string.format.
local function formatter(pattern)
  local texts = {}
  return function(n)
    local text = texts[n]
    if not text then
      text = string.format(pattern, n)
      -- NaN cannot be a table key; it is formatted every time.
      if n == n then texts[n] = text end
    end
    return text
  end
end

-- Integer text without exponent (tostring would switch to 1e+15 notation). Also the form to
-- pass a number to redis.call in: Redis would format a Lua number itself, with %.17g.
local int = formatter('%d')

-- Zero-padded id for sorted-set members, so lexicographic order is numeric order.
local pad = formatter('%015d')

-- The id at the end of a `<prefix>\0<pad id>` member.
local function idFromMember(m)
  return tonumber(string.sub(m, -ID_WIDTH))
end

-- The `ready-by-type` member of a job: `<jobType>\0<2147483647 - priority, 10 digits>\0<pad id>`,
-- so that within one type, text order is priority desc, then id asc.
local rankTexts = {}
local function typedReadyMember(job)
  local rank = rankTexts[job.priority]
  if not rank then
    rank = string.format('%010d', 2147483647 - job.priority)
    rankTexts[job.priority] = rank
  end
  return job.jobType .. '\0' .. rank .. '\0' .. pad(job.id)
end

-- A JSON array decoded by cjson, or an empty table for null/absent.
local function list(v)
  if type(v) == 'table' then return v end
  return {}
end

local function json(s)
  if isnull(s) then return 'null' end
  return cjson.encode(s)
end

-- A job's metadata decoded from its stored text, or nil when the text is not a job's metadata
-- (not JSON, or without its type, status and priority): text written or damaged outside the
-- queue. Callers treat such a job as unreadable and leave its text as it is.
local function decodeJob(text)
  local ok, job = pcall(cjson.decode, text)
  if ok and type(job) == 'table' and type(job.jobType) == 'string' and type(job.status) == 'string'
    and type(job.priority) == 'number' then
    return job
  end
  return nil
end
