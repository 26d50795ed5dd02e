// Redis counters: the same semantics as memory.ts (see counters.ts), each operation one
// Lua script so it is atomic across replicas. Money travels as decimal strings and is
// changed with HINCRBY (exact 64-bit); only the admission comparison runs in Lua numbers
// (doubles), exact up to 2^53 micro-units (≈ 900,000 USD of headroom per scope).
import { Redis } from 'ioredis';
import type { AdmitRequest, AdmitResult, Counters, ScopeDelta, SettleRequest } from './counters.ts';

const KEEP_MS = 7 * 24 * 3600 * 1000; // idle scope state is dropped after a week and reloaded

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

const ADMIT = PURGE_LEASES + `
local now, req, win = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3])
local rpm, tpm, tokens = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local cost, lease, wall, ttl = ARGV[7], ARGV[8], tonumber(ARGV[9]), tonumber(ARGV[10])
local rz, rh = KEYS[1], KEYS[2]
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
local count = redis.call('ZCARD', rz)
local used = tonumber(redis.call('HGET', rh, '_t') or '0')
local first = redis.call('ZRANGE', rz, 0, 0, 'WITHSCORES')
local resetReq = 0
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
local missing = {}
local avail = {}
for i = 3, #KEYS, 2 do
  local b, z = KEYS[i], KEYS[i + 1]
  purgeLeases(b, z, wall)
  local base = redis.call('HGET', b, 'base')
  local at = redis.call('HGET', b, 'at')
  if base and (not at or wall - tonumber(at) > ttl) then
    redis.call('HDEL', b, 'base', 'at') -- stale: settlements go to debt until it is reloaded
    base = false
  end
  if not base then
    missing[#missing + 1] = tostring((i - 1) / 2)
  else
    avail[#avail + 1] = tonumber(base) - tonumber(redis.call('HGET', b, 'res') or '0')
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
redis.call('ZADD', rz, now, req)
redis.call('HSET', rh, req, tokens)
redis.call('HINCRBY', rh, '_t', tokens)
redis.call('PEXPIRE', rz, win * 2)
redis.call('PEXPIRE', rh, win * 2)
for i = 3, #KEYS, 2 do
  local b, z = KEYS[i], KEYS[i + 1]
  redis.call('HSET', b, 'r:' .. req, cost)
  redis.call('HINCRBY', b, 'res', cost)
  redis.call('ZADD', z, lease, req)
  redis.call('PEXPIRE', b, ${KEEP_MS})
  redis.call('PEXPIRE', z, ${KEEP_MS})
end
if resetReq == 0 then resetReq = win end
return {'ok', count + 1, used + tokens, resetReq, 0}
`;

const SETTLE = DECR + `
local req, used, actual = ARGV[1], ARGV[2], ARGV[3]
local t = redis.call('HGET', KEYS[1], req)
if t then
  redis.call('HSET', KEYS[1], req, used)
  redis.call('HINCRBY', KEYS[1], '_t', tonumber(used) - tonumber(t))
end
for i = 2, #KEYS, 2 do
  local b, z = KEYS[i], KEYS[i + 1]
  local r = redis.call('HGET', b, 'r:' .. req)
  if r then
    decr(b, 'res', r)
    redis.call('HDEL', b, 'r:' .. req)
  end
  redis.call('ZREM', z, req)
  if actual ~= '0' then
    if redis.call('HEXISTS', b, 'base') == 1 then decr(b, 'base', actual)
    else redis.call('HINCRBY', b, 'debt', actual) end
  end
end
return 1
`;

const APPLY = `
for i, b in ipairs(KEYS) do
  local d = ARGV[i]
  if redis.call('HEXISTS', b, 'base') == 1 then redis.call('HINCRBY', b, 'base', d)
  elseif string.sub(d, 1, 1) == '-' then redis.call('HINCRBY', b, 'debt', string.sub(d, 2)) end
  redis.call('PEXPIRE', b, ${KEEP_MS})
end
return 1
`;

const LOAD = DECR + `
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

const INVALIDATE = `
redis.call('HINCRBY', KEYS[1], 'gen', 1)
redis.call('HDEL', KEYS[1], 'base', 'at')
redis.call('PEXPIRE', KEYS[1], ${KEEP_MS})
return 1
`;

const RESERVED = PURGE_LEASES + `
purgeLeases(KEYS[1], KEYS[2], tonumber(ARGV[1]))
return redis.call('HGET', KEYS[1], 'res') or '0'
`;

type Cmd = (...args: (string | number)[]) => Promise<unknown>;

const bKey = (scope: string) => `gw:b:${scope}`;
const zKey = (scope: string) => `gw:bz:${scope}`;
const rzKey = (rate: string) => `gw:rz:${rate}`;
const rhKey = (rate: string) => `gw:rh:${rate}`;

export class RedisCounters implements Counters {
  private readonly redis: Redis;
  private readonly cmd: Record<'admit' | 'settle' | 'apply' | 'load' | 'invalidate' | 'reserved', Cmd>;

  constructor(url: string) {
    this.redis = new Redis(url, { enableAutoPipelining: true, maxRetriesPerRequest: 2 });
    const scripts = { admit: ADMIT, settle: SETTLE, apply: APPLY, load: LOAD, invalidate: INVALIDATE, reserved: RESERVED };
    for (const [name, lua] of Object.entries(scripts)) this.redis.defineCommand(`gw_${name}`, { lua });
    const r = this.redis as unknown as Record<string, Cmd>;
    const bind = (name: string): Cmd => (...args) => r[`gw_${name}`]!.apply(this.redis, args);
    this.cmd = {
      admit: bind('admit'), settle: bind('settle'), apply: bind('apply'), load: bind('load'),
      invalidate: bind('invalidate'), reserved: bind('reserved'),
    };
  }

  async admit(r: AdmitRequest): Promise<AdmitResult> {
    const keys = [rzKey(r.rate.key), rhKey(r.rate.key)];
    for (const s of r.scopes) keys.push(bKey(s), zKey(s));
    const out = (await this.cmd.admit(
      keys.length, ...keys, r.nowMs, r.requestId, r.rate.windowMs, r.rate.rpmLimit ?? -1, r.rate.tpmLimit ?? -1,
      r.rate.tokens, r.costMicro.toString(), r.leaseUntilMs, r.wallMs, r.stateTtlMs,
    )) as (string | number)[];
    const tag = String(out[0]);
    if (tag === 'load') return { kind: 'load', scopes: out.slice(1).map((i) => r.scopes[Number(i) - 1]!) };
    const rate = { requests: Number(out[1]), tokens: Number(out[2]), resetRequestsMs: Number(out[3]), resetTokensMs: Number(out[4]) };
    if (tag === 'ok') return { kind: 'ok', rate: { ...rate, resetTokensMs: rate.resetRequestsMs } };
    if (tag === 'rpm' || tag === 'tpm') return { kind: tag, rate, retryAfterMs: Number(out[4]) };
    return { kind: 'budget', scope: r.scopes[Number(out[5]) - 1]!, availableMicro: BigInt(String(out[6])), rate };
  }

  async generation(scope: string): Promise<string> {
    return (await this.redis.hget(bKey(scope), 'gen')) ?? '0';
  }

  async load(scope: string, gen: string, baseMicro: bigint, wallMs: number, stateTtlMs: number): Promise<void> {
    await this.cmd.load(1, bKey(scope), gen, baseMicro.toString(), wallMs, stateTtlMs);
  }

  async settle(s: SettleRequest): Promise<void> {
    const keys = [rhKey(s.rateKey)];
    for (const sc of s.scopes) keys.push(bKey(sc), zKey(sc));
    await this.cmd.settle(keys.length, ...keys, s.requestId, s.tokensUsed, s.actualMicro.toString());
  }

  async applyPosted(deltas: ScopeDelta[]): Promise<void> {
    if (!deltas.length) return;
    await this.cmd.apply(deltas.length, ...deltas.map((d) => bKey(d.scope)), ...deltas.map((d) => d.deltaMicro.toString()));
  }

  async invalidate(scope: string): Promise<void> {
    await this.cmd.invalidate(1, bKey(scope));
  }

  async reservedMicro(scope: string, wallMs: number): Promise<bigint> {
    return BigInt(String(await this.cmd.reserved(2, bKey(scope), zKey(scope), wallMs)));
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
