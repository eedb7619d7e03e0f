-- The distinct job types starting with `prefix` ('' for every type), from the `types` index
-- (`<jobType>\0<pad id>` members, in byte order, so the types of a prefix lie together): one
-- ZRANGEBYLEX per type, skipping to the first member after the type's ids. Returns at most
-- `max` types in byte order, and true when there are more.
local function typesWithPrefix(prefix, max)
  local types, from = {}, '[' .. prefix
  while true do
    local m = redis.call('ZRANGEBYLEX', K['types'], from, '+', 'LIMIT', 0, 1)[1]
    if not m then return types, false end
    local t = string.sub(m, 1, string.find(m, '\0', 1, true) - 1)
    if string.sub(t, 1, #prefix) ~= prefix then return types, false end
    if #types == max then return types, true end
    types[#types + 1] = t
    from = '[' .. t .. '\1'
  end
end
