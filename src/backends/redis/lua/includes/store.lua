-- The store identity check (identity.ts). The queue passes the store id it saw when it first
-- used the store; `meta` holding another id, or none, means the store was wiped or replaced
-- under the queue (a restart without persistence, FLUSHDB, deleted keys). The script stops
-- before any write, so no id is allocated from a counter that started again.
local function checkStore(expected)
  local found = redis.call('HGET', K['meta'], 'storeId')
  if found ~= expected then
    error({ err = 'QUEUEDEV_STORE_RESET ' .. (found or '-') })
  end
end
