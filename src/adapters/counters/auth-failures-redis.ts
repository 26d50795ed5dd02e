// Failed-authentication counts in Redis (domain/auth-throttle.ts), shared by every replica:
// one script counts a request's subjects atomically (a hash per subject: count and window
// end, by the business clock; Redis expires it after its window). A subject reaching its limit
// is published from the same script, so every replica refuses it before checking a credential
// without asking Redis on its own success path. Redis unreachable: commands fail at once
// (no offline queue, a short deadline) as DependencyDown and the throttle counts on the
// replica's own counters meanwhile.
import { Redis } from 'ioredis';
import type { AuthFailureCounter, FailureCount } from '../../domain/auth-throttle.ts';
import { REDIS_OPTIONS, RedisClient } from '../redis-client.ts';

// KEYS: one per subject; ARGV: now, window, the channel, then each subject's limit and name.
const HIT = `
local now, win = tonumber(ARGV[1]), tonumber(ARGV[2])
local out = {}
for i, k in ipairs(KEYS) do
  local st = redis.call('HMGET', k, 'n', 'u')
  local n, u = tonumber(st[1] or '0'), tonumber(st[2] or '0')
  if u <= now then n, u = 0, now + win end
  n = n + 1
  redis.call('HSET', k, 'n', n, 'u', u)
  redis.call('PEXPIRE', k, u - now + 1000)
  if n == tonumber(ARGV[2 + 2 * i]) then redis.call('PUBLISH', ARGV[3], ARGV[3 + 2 * i] .. ' ' .. u) end
  out[#out + 1] = n
  out[#out + 1] = u
end
return out`;

const COUNT = `
local st = redis.call('HMGET', KEYS[1], 'n', 'u')
if not st[2] or tonumber(st[2]) <= tonumber(ARGV[1]) then return 0 end
return tonumber(st[1])`;

type Cmd = (...args: (string | number)[]) => Promise<unknown>;

export interface RedisAuthFailuresOptions {
  url: string;
  commandTimeoutMs?: number;
  /** keys and the lockout channel are prefixed with this (tests keep theirs apart) */
  prefix?: string;
  /** before `prefix`, on keys and the channel alike: the installation's namespace in a shared Redis (GANTRY_REDIS_PREFIX) */
  namespace?: string;
}

export class RedisAuthFailures implements AuthFailureCounter {
  private readonly redis: Redis;
  /** pub/sub needs a connection of its own */
  private readonly sub: Redis;
  private readonly cmd: { hit: Cmd; count: Cmd };
  private readonly prefix: string;
  private readonly channel: string;
  private readonly timeoutMs: number;
  private readonly listeners: ((subject: string, untilMs: number) => void)[] = [];
  private readonly client: RedisClient;

  constructor(opts: RedisAuthFailuresOptions) {
    this.prefix = (opts.namespace ?? '') + (opts.prefix ?? 'af:');
    this.channel = `${this.prefix}locks`;
    this.timeoutMs = opts.commandTimeoutMs ?? 250;
    this.client = new RedisClient(opts.url, this.timeoutMs);
    this.redis = this.client.redis;
    this.redis.defineCommand('af_hit', { lua: HIT });
    this.redis.defineCommand('af_count', { lua: COUNT });
    const r = this.redis as unknown as Record<string, Cmd>;
    this.cmd = { hit: (...a) => r.af_hit!.apply(this.redis, a), count: (...a) => r.af_count!.apply(this.redis, a) };
    this.sub = new Redis(opts.url, { ...REDIS_OPTIONS, enableAutoPipelining: false });
    this.sub.on('error', () => {});
    // (re)subscribed at every connection: a lockout announced while this one was away is learnt from the next failure
    this.sub.on('ready', () => void this.sub.subscribe(this.channel).catch(() => {}));
    this.sub.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const at = message.lastIndexOf(' ');
      const untilMs = Number(message.slice(at + 1));
      if (at <= 0 || !Number.isFinite(untilMs)) return;
      for (const fn of this.listeners) fn(message.slice(0, at), untilMs);
    });
  }

  private run<T>(fn: () => Promise<T>): Promise<T> {
    return this.client.run(fn);
  }


  async hit(subjects: string[], limits: number[], windowMs: number, nowMs: number): Promise<FailureCount[]> {
    const args: (string | number)[] = [nowMs, windowMs, this.channel];
    for (const [i, s] of subjects.entries()) args.push(limits[i] ?? 0, s);
    const out = await this.run(() => this.cmd.hit(subjects.length, ...subjects.map((s) => this.prefix + s), ...args)) as number[];
    return subjects.map((_, i) => ({ n: Number(out[2 * i]), untilMs: Number(out[2 * i + 1]) }));
  }

  async count(subject: string, nowMs: number): Promise<number> {
    return Number(await this.run(() => this.cmd.count(1, this.prefix + subject, nowMs)));
  }

  onLock(fn: (subject: string, untilMs: number) => void): void {
    this.listeners.push(fn);
  }

  async close(): Promise<void> {
    this.sub.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
