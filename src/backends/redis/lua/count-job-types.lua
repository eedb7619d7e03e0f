--[[
  Counts the job types of one slice of a status's jobs, newest first (getJobCounts). Read-only.
  KEYS[1] jobs, KEYS[2] status:pending, KEYS[3] status:processing, KEYS[4] status:completed,
  KEYS[5] status:failed, KEYS[6] status:cancelled, KEYS[7] status:waiting
  ARGV[1] the status; ARGV[2] the cursor: the id below which to read, or '' from the newest;
  ARGV[3] how many jobs to read at most (slices.ts).
  Returns { cursor, jobType, count, jobType, count, ... }: the cursor is the id of the last job
  read, or 0 when the status has no more jobs.
]]
--- @include "util"

local key = K['status:' .. ARGV[1]]
local want = tonumber(ARGV[3])
local ids = redis.call('ZREVRANGEBYSCORE', key, ARGV[2] == '' and '+inf' or '(' .. ARGV[2], '-inf', 'LIMIT', 0, want)
if #ids == 0 then return { 0 } end
local counts, order = {}, {}
for _, text in ipairs(redis.call('HMGET', K['jobs'], unpack(ids))) do
  -- A job the status set names always has metadata; a missing or unreadable one is not counted.
  local job = text and decodeJob(text)
  if job then
    local jobType = job.jobType
    if not counts[jobType] then order[#order + 1] = jobType end
    counts[jobType] = (counts[jobType] or 0) + 1
  end
end
local reply = { #ids < want and 0 or tonumber(ids[#ids]) }
for _, jobType in ipairs(order) do
  reply[#reply + 1] = jobType
  reply[#reply + 1] = counts[jobType]
end
return reply
