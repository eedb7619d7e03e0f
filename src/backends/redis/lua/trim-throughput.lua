--[[
  Removes the throughput counters (includes/throughput.lua) of minutes before the cutoff: the
  supervisor's trim, which the scripts that count also do on the first count of each minute.
  KEYS[1] throughput
  ARGV[1] the cutoff (ms): counters of minutes starting before it go.
  Returns how many fields were removed.
]]
--- @include "util"
--- @include "throughput"

return trimThroughput(math.floor(tonumber(ARGV[1]) / 60000))
