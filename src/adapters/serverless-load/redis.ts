// The serverless router's shared load in Redis (domain/serverless/load.ts), so replicas
// share it: a worker's `maxConcurrent` slots hold across every replica, and the autoscaler
// on whichever replica runs the pass sees the requests waiting on all of them.
// - Slots: a sorted set per worker (member = token, score = lease end). Taking one is one
//   script: drop ended leases, count, add. A replica that dies leaves slots that end with
//   their lease (the router sets it past the request's own timeout).
// - Waiting requests: one key per endpoint and replica with a short TTL, kept alive by this
//   replica while its queue is not empty (a dead replica's queue is forgotten within the
//   TTL), listed in a set per endpoint.
// Redis unreachable: commands fail at once (no offline queue) as DependencyDown, which the
// caller of the URL gets as 503 naming Redis.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { QueueState, WorkerActivity, WorkerLoad } from '../../domain/serverless/load.ts';
import { RedisClient } from '../redis-client.ts';

const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return false end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIREAT', KEYS[1], ARGV[5])
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[6])
return ARGV[4]`;

const RELEASE = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1`;

// KEYS: pairs of (slots, last busy) per worker; ARGV[1] now. Returns inflight, lastBusy pairs.
const ACTIVITY = `
local out = {}
for i = 1, #KEYS, 2 do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', ARGV[1])
  out[#out + 1] = redis.call('ZCARD', KEYS[i])
  out[#out + 1] = redis.call('GET', KEYS[i + 1]) or '0'
end
return out`;

// KEYS[1] the endpoint's set of replicas; ARGV[1] the key prefix of one replica's report.
// Returns waiting, oldest ('' when none); forgets replicas whose report expired.
const QUEUE = `
local waiting, oldest = 0, nil
for _, r in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local v = redis.call('GET', ARGV[1] .. r)
  if not v then
    redis.call('SREM', KEYS[1], r)
  else
    local sep = string.find(v, ':')
    waiting = waiting + tonumber(string.sub(v, 1, sep - 1))
    local since = tonumber(string.sub(v, sep + 1))
    if since and (oldest == nil or since < oldest) then oldest = since end
  end
end
return {waiting, oldest and tostring(oldest) or ''}`;

type Cmd = (...args: (string | number)[]) => Promise<unknown>;

export interface RedisLoadOptions {
  url: string;
  /** how long one replica's report of its waiting requests lasts unless renewed */
  queueTtlMs?: number;
  commandTimeoutMs?: number;
  /** keys are prefixed with this (tests keep their keys apart) */
  prefix?: string;
  /** before `prefix`: the installation's namespace in a shared Redis (GANTRY_REDIS_PREFIX) */
  namespace?: string;
}

/** When a worker was last busy is kept this long (a worker idle longer is idle, whatever the value). */
const BUSY_TTL_MS = 7 * 24 * 3600_000;

export class RedisLoad implements WorkerLoad {
  private readonly redis: Redis;
  private readonly cmd: Record<'acquire' | 'release' | 'activity' | 'queue', Cmd>;
  private readonly replica = randomUUID();
  private readonly prefix: string;
  private readonly queueTtlMs: number;
  private readonly commandTimeoutMs: number;
  /** this replica's non-empty queues, renewed until they empty */
  private readonly reported = new Map<string, QueueState>();
  private readonly timer: NodeJS.Timeout;
  private readonly client: RedisClient;

  constructor(opts: RedisLoadOptions) {
    this.prefix = (opts.namespace ?? '') + (opts.prefix ?? 'sl:'); // QUEUE builds its report keys from it: under the namespace too
    this.queueTtlMs = opts.queueTtlMs ?? 5_000;
    this.commandTimeoutMs = opts.commandTimeoutMs ?? 250;
    this.client = new RedisClient(opts.url, this.commandTimeoutMs);
    this.redis = this.client.redis;
    const scripts = { acquire: ACQUIRE, release: RELEASE, activity: ACTIVITY, queue: QUEUE };
    for (const [name, lua] of Object.entries(scripts)) this.redis.defineCommand(`sl_${name}`, { lua });
    const r = this.redis as unknown as Record<string, Cmd>;
    const bind = (name: string): Cmd => (...args) => r[`sl_${name}`]!.apply(this.redis, args);
    this.cmd = { acquire: bind('acquire'), release: bind('release'), activity: bind('activity'), queue: bind('queue') };
    this.timer = setInterval(() => void this.renewQueues(), Math.max(100, Math.floor(this.queueTtlMs / 3)));
    this.timer.unref();
  }

  private slotsKey(workerId: string): string {
    return `${this.prefix}w:${workerId}`;
  }

  private busyKey(workerId: string): string {
    return `${this.prefix}wb:${workerId}`;
  }

  private run<T>(fn: () => Promise<T>): Promise<T> {
    return this.client.run(fn);
  }


  async tryAcquire(workerId: string, max: number, leaseMs: number, nowMs: number): Promise<string | null> {
    const token = randomUUID();
    const untilMs = nowMs + leaseMs;
    // the key outlives its longest lease by a minute; Redis's own clock only cleans up
    const expireAt = Date.now() + leaseMs + 60_000;
    const got = await this.run(() => this.cmd.acquire(2, this.slotsKey(workerId), this.busyKey(workerId), nowMs, max, untilMs, token, expireAt, BUSY_TTL_MS));
    return typeof got === 'string' ? got : null;
  }

  async release(workerId: string, token: string, nowMs: number): Promise<void> {
    await this.run(() => this.cmd.release(2, this.slotsKey(workerId), this.busyKey(workerId), token, nowMs, BUSY_TTL_MS));
  }

  async activity(workerIds: string[], nowMs: number): Promise<Map<string, WorkerActivity>> {
    const out = new Map<string, WorkerActivity>();
    if (!workerIds.length) return out;
    const keys = workerIds.flatMap((id) => [this.slotsKey(id), this.busyKey(id)]);
    const raw = await this.run(() => this.cmd.activity(keys.length, ...keys, nowMs)) as (number | string)[];
    for (const [i, id] of workerIds.entries()) out.set(id, { inflight: Number(raw[2 * i]), lastBusyAtMs: Number(raw[2 * i + 1]) });
    return out;
  }

  private reportKey(endpointId: string): string {
    return `${this.prefix}q:${endpointId}:`;
  }

  private setKey(endpointId: string): string {
    return `${this.prefix}qs:${endpointId}`;
  }

  private async writeQueue(endpointId: string, q: QueueState): Promise<void> {
    const key = this.reportKey(endpointId) + this.replica;
    if (q.waiting === 0) {
      await this.run(() => this.redis.del(key));
      return;
    }
    await this.run(() => Promise.all([
      this.redis.set(key, `${q.waiting}:${q.oldestSinceMs ?? ''}`, 'PX', this.queueTtlMs),
      this.redis.sadd(this.setKey(endpointId), this.replica),
      this.redis.pexpire(this.setKey(endpointId), this.queueTtlMs * 4),
    ]));
  }

  async reportQueue(endpointId: string, q: QueueState): Promise<void> {
    if (q.waiting === 0) this.reported.delete(endpointId);
    else this.reported.set(endpointId, q);
    await this.writeQueue(endpointId, q);
  }

  /** Keep this replica's non-empty queues visible (their keys would expire otherwise). */
  private async renewQueues(): Promise<void> {
    for (const [endpointId, q] of this.reported) await this.writeQueue(endpointId, q).catch(() => {});
  }

  async queue(endpointId: string): Promise<QueueState> {
    const [waiting, oldest] = await this.run(() => this.cmd.queue(1, this.setKey(endpointId), this.reportKey(endpointId))) as [number, string];
    return { waiting: Number(waiting), oldestSinceMs: oldest === '' ? null : Number(oldest) };
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.redis.disconnect();
  }
}
