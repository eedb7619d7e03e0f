--[[
  The distinct job types starting with a prefix, in byte order (the dashboard's type picker).
  Read only. One index read per type returned.
  KEYS[1] types
  ARGV[1] the prefix ('' for every type); ARGV[2] the most types to return.
  Returns the types.
]]
--- @include "util"
--- @include "type-prefix"

local types = typesWithPrefix(ARGV[1], tonumber(ARGV[2]))
return types
