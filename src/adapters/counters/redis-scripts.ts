// The Lua scripts of the Redis counters (redis.ts): each operation is one script, so it is
// atomic across replicas. Money travels as decimal strings and is changed with HINCRBY
// (exact 64-bit); only the admission comparison runs in Lua numbers (doubles), exact up to
// 2^53 micro-units (≈ 900,000 USD of headroom per scope).

export const KEEP_MS = 7 * 24 * 3600 * 1000; // idle scope state is dropped after a week and reloaded

// Redis refuses "-0" as an integer, so subtractions of zero are skipped.
const DECR = `
local function decr(key, field, v)
  if v ~= '0' then redis.call('HINCRBY', key, field, '-' .. v) end
end
`;

const PURGE_LEASES = DECR + `
local function purgeLeases(b, z, wall)
  local old = redis.call('ZRANGEBYSCORE', z, '-inf', wall)
  for _, id in ipairs(old) do
    local v = redis.call('HGET', b, 'r:' .. id)
    if v then
      decr(b, 'res', v)
      redis.call('HDEL', b, 'r:' .. id)
    end
  end
  if #old > 0 then redis.call('ZREMRANGEBYSCORE', z, '-inf', wall) end
end
`;

export const ADMIT = PURGE_LEASES + `
local now, req, win = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local rpm, tpm, tokens = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local cost, lease, wall, ttl = ARGV[7], ARGV[8], tonumber(ARGV[9]), tonumber(ARGV[10])
-- KEYS[1] the epoch, KEYS[2] the restore grace: after Redis lost its data, nothing is admitted
-- until this replica has put back what it holds (and the others have had time to).
-- (Each redis.call costs about a microsecond beyond its own work; calls are merged where
-- the state allows: one MGET for both, one HMGET per scope.)
local eg = redis.call('MGET', KEYS[1], KEYS[2])
local epoch = eg[1]
if epoch ~= ARGV[11] then return {'epoch', epoch or ''} end
if eg[2] then
  local grace = redis.call('PTTL', KEYS[2])
  if grace > 0 then return {'restoring', grace} end
end
local rz, rh = KEYS[3], KEYS[4]
local hasRate = win > 0
local count, used, resetReq = 0, 0, 0
if hasRate then
local old = redis.call('ZRANGEBYSCORE', rz, '-inf', now - win)
if #old > 0 then
  local freed = 0
  for _, id in ipairs(old) do
    freed = freed + tonumber(redis.call('HGET', rh, id) or '0')
    redis.call('HDEL', rh, id)
  end
  if freed > 0 then redis.call('HINCRBY', rh, '_t', -freed) end
  redis.call('ZREMRANGEBYSCORE', rz, '-inf', now - win)
end
count = redis.call('ZCARD', rz)
used = tonumber(redis.call('HGET', rh, '_t') or '0')
local first = redis.call('ZRANGE', rz, 0, 0, 'WITHSCORES')
if first[2] then resetReq = math.max(0, tonumber(first[2]) + win - now) end
if rpm >= 0 and count + 1 > rpm then return {'rpm', count, used, resetReq, resetReq} end
if tpm >= 0 and used + tokens > tpm then
  local wait, u = win, used
  local all = redis.call('ZRANGE', rz, 0, -1, 'WITHSCORES')
  for i = 1, #all, 2 do
    u = u - tonumber(redis.call('HGET', rh, all[i]) or '0')
    if u + tokens <= tpm then wait = math.max(0, tonumber(all[i + 1]) + win - now); break end
  end
  return {'tpm', count, used, resetReq, wait}
end
end
local missing = {}
local avail = {}
for i = 5, #KEYS, 2 do
  local b, z = KEYS[i], KEYS[i + 1]
  purgeLeases(b, z, wall)
  local st = redis.call('HMGET', b, 'base', 'at', 'res')
  local base, at = st[1], st[2]
  if base and (not at or wall - tonumber(at) > ttl) then
    redis.call('HDEL', b, 'base', 'at') -- stale: settlements go to debt until it is reloaded
    base = false
  end
  if not base then
    missing[#missing + 1] = tostring((i - 3) / 2)
  else
    avail[#avail + 1] = tonumber(base) - tonumber(st[3] or '0')
  end
end
if #missing > 0 then
  local out = {'load'}
  for _, m in ipairs(missing) do out[#out + 1] = m end
  return out
end
local c = tonumber(cost)
for j, a in ipairs(avail) do
  if a < c then return {'budget', count, used, resetReq, 0, j, string.format('%.0f', a)} end
end
if hasRate then
  redis.call('ZADD', rz, now, req)
  redis.call('HSET', rh, req, tokens)
  redis.call('HINCRBY', rh, '_t', tokens)
  redis.call('PEXPIRE', rz, win * 2)
  redis.call('PEXPIRE', rh, win * 2)
end
-- No PEXPIRE of b here: admitting needs a base loaded within the state TTL (≤ 1 hour), and
-- LOAD gives b a lifetime of KEEP_MS, so b outlives every lease taken from it by days.
for i = 5, #KEYS, 2 do
  local b, z = KEYS[i], KEYS[i + 1]
  redis.call('HSET', b, 'r:' .. req, cost)
  redis.call('HINCRBY', b, 'res', cost)
  redis.call('ZADD', z, lease, req)
  redis.call('PEXPIRE', z, ${KEEP_MS})
end
if not hasRate then return {'ok', 0, 0, 0, 0} end
if resetReq == 0 then resetReq = win end
return {'ok', count + 1, used + tokens, resetReq, 0}
`;

export const SETTLE = DECR + `
local req, used, actual = ARGV[1], ARGV[2], ARGV[3]
local t = false
if used ~= '' then t = redis.call('HGET', KEYS[1], req) end
if t then
  redis.call('HSET', KEYS[1], req, used)
  redis.call('HINCRBY', KEYS[1], '_t', tonumber(used) - tonumber(t))
end
for i = 2, #KEYS, 2 do
  local b, z = KEYS[i], KEYS[i + 1]
  local st = redis.call('HMGET', b, 'r:' .. req, 'base')
  local r = st[1]
  if r then
    decr(b, 'res', r)
    redis.call('HDEL', b, 'r:' .. req)
  end
  redis.call('ZREM', z, req)
  if actual ~= '0' then
    if st[2] then decr(b, 'base', actual)
    else redis.call('HINCRBY', b, 'debt', actual) end
  end
end
return 1
`;

export const APPLY = `
for i, b in ipairs(KEYS) do
  local d = ARGV[i]
  if redis.call('HEXISTS', b, 'base') == 1 then redis.call('HINCRBY', b, 'base', d)
  elseif string.sub(d, 1, 1) == '-' then redis.call('HINCRBY', b, 'debt', string.sub(d, 2)) end
  redis.call('PEXPIRE', b, ${KEEP_MS})
end
return 1
`;

export const LOAD = DECR + `
local b = KEYS[1]
local g = redis.call('HGET', b, 'gen') or '0'
if g ~= ARGV[1] then return 0 end
local base = redis.call('HGET', b, 'base')
local at = redis.call('HGET', b, 'at')
if base and at and tonumber(ARGV[3]) - tonumber(at) <= tonumber(ARGV[4]) then return 1 end
local debt = redis.call('HGET', b, 'debt') or '0'
redis.call('HSET', b, 'base', ARGV[2], 'at', ARGV[3])
decr(b, 'base', debt)
redis.call('HDEL', b, 'debt')
redis.call('PEXPIRE', b, ${KEEP_MS})
return 1
`;

export const INVALIDATE = `
redis.call('HINCRBY', KEYS[1], 'gen', 1)
redis.call('HDEL', KEYS[1], 'base', 'at')
redis.call('PEXPIRE', KEYS[1], ${KEEP_MS})
return 1
`;

export const RESERVED = PURGE_LEASES + `
purgeLeases(KEYS[1], KEYS[2], tonumber(ARGV[1]))
return redis.call('HGET', KEYS[1], 'res') or '0'
`;

// After Redis lost its data (restarted empty, failed over to an empty replica): create the
// epoch anew if nobody has yet (with a grace during which nothing is admitted, so every
// replica has time to put back what it holds), then put back this replica's live
// reservations and recent rate-window entries. Idempotent: what is there already stays.
// KEYS: epoch, grace, then for each lease its scope's hash and lease set, then for each rate
// entry its window's zset and hash. ARGV: new epoch, grace ms, #leases, then per lease
// id, amount, until; then per rate entry id, atMs, tokens, windowMs.
export const RESTORE = `
local epoch = redis.call('GET', KEYS[1])
if not epoch then
  epoch = ARGV[1]
  redis.call('SET', KEYS[1], epoch)
  if tonumber(ARGV[2]) > 0 then redis.call('SET', KEYS[2], '1', 'PX', ARGV[2]) end
end
local nLeases = tonumber(ARGV[3])
local k, a = 3, 4
for _ = 1, nLeases do
  local b, z = KEYS[k], KEYS[k + 1]
  local id, amount, untilMs = ARGV[a], ARGV[a + 1], ARGV[a + 2]
  if redis.call('HEXISTS', b, 'r:' .. id) == 0 then
    redis.call('HSET', b, 'r:' .. id, amount)
    redis.call('HINCRBY', b, 'res', amount)
    redis.call('ZADD', z, untilMs, id)
    redis.call('PEXPIRE', b, ${KEEP_MS})
    redis.call('PEXPIRE', z, ${KEEP_MS})
  end
  k, a = k + 2, a + 3
end
while k <= #KEYS do
  local rz, rh = KEYS[k], KEYS[k + 1]
  local id, at, tokens, win = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
  if redis.call('HEXISTS', rh, id) == 0 then
    redis.call('ZADD', rz, at, id)
    redis.call('HSET', rh, id, tokens)
    redis.call('HINCRBY', rh, '_t', tokens)
    redis.call('PEXPIRE', rz, tonumber(win) * 2)
    redis.call('PEXPIRE', rh, tonumber(win) * 2)
  end
  k, a = k + 2, a + 4
end
return epoch
`;

// A live request's leases are renewed while it runs, so a short lease suffices: the holds
// of a replica that died stop refusing others within one lease. KEYS: lease sets; ARGV: until,
// then for each key the id (one id per key, keys may repeat).
export const RENEW = `
for i, z in ipairs(KEYS) do redis.call('ZADD', z, 'XX', ARGV[1], ARGV[i + 1]) end
return 1
`;
