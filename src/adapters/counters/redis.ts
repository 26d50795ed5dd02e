// Redis counters: the same semantics as memory.ts (see domain/spend/counters.ts), each
// operation one Lua script (redis-scripts.ts) so it is atomic across replicas. What Redis
// adds, it must survive:
// - Redis unreachable: commands fail at once (no offline queue, a short command deadline, lib/deadline.ts)
//   with DependencyDown('redis'), which the client gets as 503 naming Redis; nothing waits
//   for Redis to come back, and nothing is admitted later without its client.
// - Redis restarted empty: an epoch key disappears with the data. The first command or
//   heartbeat (every `heartbeatMs`) that sees it gone puts back what this replica holds
//   (redis-mirror.ts) and, if it creates the new epoch, opens a grace of `restoreGraceMs`
//   during which nobody is admitted, so every replica has put back its part first. Spent
//   amounts are re-read from the ledger (the budget state is simply missing).
// - A replica that dies: its leases are short (`leaseMs`) and renewed while their requests
//   run, so its holds stop refusing others within one lease.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { AdmitRequest, AdmitResult, BudgetScope, Counters, ScopeDelta, SettleRequest } from '../../domain/spend/counters.ts';
import { scopeKey } from '../../domain/spend/scopes.ts';
import { DependencyDown } from '../../lib/dependencies.ts';
import { withDeadline } from '../../lib/deadline.ts';
import { ADMIT, APPLY, INVALIDATE, LOAD, RENEW, RESERVED, RESTORE, SETTLE } from './redis-scripts.ts';
import { RedisMirror } from './redis-mirror.ts';
import type { Logger } from '../../lib/logger.ts';

type Cmd = (...args: (string | number)[]) => Promise<unknown>;

const NO_RATE = '_none'; // a key name for scripts called without a rate window (never written)
/** Entries (a lease's scope or a rate entry) put back by one RESTORE call. */
const RESTORE_CHUNK = 2000;

/**
 * The counters' keys, under the installation's namespace (GANTRY_REDIS_PREFIX; '' = the keys
 * of versions before it). Scripts get every key they touch in KEYS, never a name built inside.
 */
function counterKeys(ns: string) {
  return {
    epoch: `${ns}gw:epoch`,
    grace: `${ns}gw:restoring`,
    b: (scope: BudgetScope) => `${ns}gw:b:${scopeKey(scope)}`,
    z: (scope: BudgetScope) => `${ns}gw:bz:${scopeKey(scope)}`,
    rz: (rate: string) => `${ns}gw:rz:${rate}`,
    rh: (rate: string) => `${ns}gw:rh:${rate}`,
  };
}

export interface RedisCountersOptions {
  url: string;
  /** the business clock (rate windows), as admission passes it */
  nowMs: () => number;
  /** how long a lease lasts unless renewed (a dead replica's holds go after this) */
  leaseMs?: number;
  renewEveryMs?: number;
  /** how often the epoch is checked (and Redis probed) */
  heartbeatMs?: number;
  /** after a loss, how long nobody is admitted while every replica puts back its part */
  restoreGraceMs?: number;
  commandTimeoutMs?: number;
  /** prepended to every key: the installation's namespace in a shared Redis (GANTRY_REDIS_PREFIX) */
  namespace?: string;
  /** Redis could not be reached / was reached again (the replica's dependency health) */
  onDown?: (err: unknown) => void;
  onUp?: () => void;
  log?: Logger;
}

export class RedisCounters implements Counters {
  private readonly redis: Redis;
  private readonly cmd: Record<'admit' | 'settle' | 'apply' | 'load' | 'invalidate' | 'reserved' | 'restore' | 'renew', Cmd>;
  private readonly opts: Required<Omit<RedisCountersOptions, 'onDown' | 'onUp' | 'log'>> & Pick<RedisCountersOptions, 'onDown' | 'onUp' | 'log'>;
  private readonly k: ReturnType<typeof counterKeys>;
  private readonly mirror = new RedisMirror();
  /** The epoch this replica has put its state into ('' before the first contact). */
  private epoch = '';
  private restoring: Promise<void> | undefined;
  /** Scopes whose updates were lost while Redis was unreachable: read again from the ledger once it answers. */
  private readonly stale = new Map<string, BudgetScope>();
  private reachable = true;
  private timer: NodeJS.Timeout | undefined;
  private lastRenewMs = 0;
  private closed = false;
  /** Restores done after a loss (for tests and /metrics). */
  restores = 0;

  constructor(opts: RedisCountersOptions) {
    this.opts = {
      leaseMs: 20_000, renewEveryMs: 5_000, heartbeatMs: 250, restoreGraceMs: 500, commandTimeoutMs: 250, namespace: '', ...opts,
    };
    this.k = counterKeys(this.opts.namespace);
    this.redis = new Redis(opts.url, {
      enableAutoPipelining: true,
      enableOfflineQueue: false, // while disconnected a command fails at once: no request waits for Redis
      maxRetriesPerRequest: 0,
      // no commandTimeout: its plain timer calls Redis down after the event loop was merely busy (withDeadline)
      // reconnect attempts stay frequent: serving resumes within about this much of Redis returning
      retryStrategy: (times) => Math.min(25 * 2 ** Math.min(times, 3), 200),
    });
    this.redis.on('error', (err) => this.down(err)); // also keeps an 'error' event from ending the process
    this.redis.on('ready', () => void this.heartbeat());
    const scripts = { admit: ADMIT, settle: SETTLE, apply: APPLY, load: LOAD, invalidate: INVALIDATE, reserved: RESERVED, restore: RESTORE, renew: RENEW };
    for (const [name, lua] of Object.entries(scripts)) this.redis.defineCommand(`gw_${name}`, { lua });
    const r = this.redis as unknown as Record<string, Cmd>;
    const bind = (name: string): Cmd => (...args) => r[`gw_${name}`]!.apply(this.redis, args);
    this.cmd = {
      admit: bind('admit'), settle: bind('settle'), apply: bind('apply'), load: bind('load'),
      invalidate: bind('invalidate'), reserved: bind('reserved'), restore: bind('restore'), renew: bind('renew'),
    };
  }

  /** Wait (bounded) for the first connection and start the heartbeat. A Redis down at start is not fatal. */
  async start(waitMs = 5_000): Promise<void> {
    if (this.redis.status !== 'ready') {
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, waitMs);
        this.redis.once('ready', () => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    await this.heartbeat();
    this.timer = setInterval(() => void this.heartbeat(), this.opts.heartbeatMs);
    this.timer.unref();
  }

  /** A command, with a connection failure told as DependencyDown (503 for the client). */
  private async run<T>(fn: () => Promise<T>): Promise<T> {
    try {
      const out = await withDeadline(fn(), this.opts.commandTimeoutMs);
      this.up();
      return out;
    } catch (err) {
      if ((err as Error)?.name === 'ReplyError') throw err; // a script error is a bug, not an outage
      this.down(err);
      throw new DependencyDown('redis', err);
    }
  }

  private down(err: unknown): void {
    if (this.closed) return;
    if (this.reachable) {
      this.reachable = false;
      this.opts.onDown?.(err);
    }
  }

  private up(): void {
    if (this.reachable) return;
    this.reachable = true;
    this.opts.onUp?.();
    void this.flushStale();
  }

  /** Check the epoch (restore after a loss), renew leases, and probe Redis. */
  async heartbeat(): Promise<void> {
    if (this.closed) return;
    try {
      const current = await this.run(() => this.redis.get(this.k.epoch));
      if (current !== this.epoch || current === null) await this.restore();
      const wall = Date.now();
      this.mirror.prune(this.opts.nowMs(), wall);
      if (wall - this.lastRenewMs >= this.opts.renewEveryMs) await this.renew(wall);
    } catch {
      // down() has been told; the next heartbeat tries again
    }
  }

  /** Probe for the dependency health: fails while Redis cannot be reached. */
  async ping(): Promise<void> {
    await this.run(() => this.redis.ping());
  }

  /** Put back what this replica holds, into the epoch in force (creating it if Redis lost it). Single-flight. */
  private restore(): Promise<void> {
    this.restoring ??= this.doRestore().finally(() => { this.restoring = undefined; });
    return this.restoring;
  }

  private async doRestore(): Promise<void> {
    const lost = this.epoch !== ''; // we knew an epoch and it is gone: Redis lost its data
    const newEpoch = randomUUID();
    const graceMs = lost ? this.opts.restoreGraceMs : 0;
    const wall = Date.now();
    this.mirror.prune(this.opts.nowMs(), wall);
    // In chunks: a minute of a busy replica's rate entries is ~10^5 of them, and one call
    // carrying all their keys and arguments overflowed the call stack (spread arguments), and
    // would hold Redis for its whole length. RESTORE is idempotent entry by entry, and only
    // its first call can create the epoch (the others find it).
    // Each entry is two keys (leases first, then rate entries, as RESTORE reads them).
    let epoch: string | undefined;
    let leaseKeys: string[] = [];
    let leaseArgs: (string | number)[] = [];
    let rateKeys: string[] = [];
    let rateArgs: (string | number)[] = [];
    const entries = () => (leaseKeys.length + rateKeys.length) / 2;
    const send = async () => {
      const keys = [this.k.epoch, this.k.grace, ...leaseKeys, ...rateKeys];
      const args = [newEpoch, graceMs, leaseKeys.length / 2, ...leaseArgs, ...rateArgs];
      leaseKeys = [];
      leaseArgs = [];
      rateKeys = [];
      rateArgs = [];
      const got = String(await this.run(() => this.cmd.restore(keys.length, ...keys, ...args)));
      // Redis lost its data again meanwhile: what the earlier chunks put back is gone too
      if (epoch !== undefined && got !== epoch) throw new DependencyDown('redis', new Error('Redis lost its counters again while they were being put back'));
      epoch = got;
    };
    for (const [id, l] of this.mirror.leases) {
      const until = Math.min(l.maxUntilMs, wall + this.opts.leaseMs);
      for (const s of l.scopes) {
        leaseKeys.push(this.k.b(s), this.k.z(s));
        leaseArgs.push(id, l.amountMicro.toString(), until);
        if (entries() >= RESTORE_CHUNK) await send();
      }
    }
    for (const [key, w] of this.mirror.rates) {
      for (const e of w.log.entries()) {
        rateKeys.push(this.k.rz(key), this.k.rh(key));
        rateArgs.push(e.id, e.atMs, e.tokens, w.windowMs);
        if (entries() >= RESTORE_CHUNK) await send();
      }
    }
    if (entries() > 0 || epoch === undefined) await send();
    if (lost && epoch !== this.epoch) {
      this.restores++;
      this.opts.log?.warn({ leases: this.mirror.leases.size, rateEntries: this.mirror.rateEntries() }, 'Redis lost its counters: put back this replica\'s reservations and rate windows');
    }
    this.epoch = epoch!;
  }

  private async renew(wall: number): Promise<void> {
    this.lastRenewMs = wall;
    const keys: string[] = [];
    const ids: string[] = [];
    for (const [id, l] of this.mirror.leases) {
      for (const s of l.scopes) {
        keys.push(this.k.z(s));
        ids.push(id);
      }
    }
    const until = wall + this.opts.leaseMs;
    for (let i = 0; i < keys.length; i += 500) {
      const k = keys.slice(i, i + 500);
      await this.run(() => this.cmd.renew(k.length, ...k, until, ...ids.slice(i, i + 500)));
    }
  }

  async admit(r: AdmitRequest): Promise<AdmitResult> {
    const rate = r.rate;
    const keys = [this.k.epoch, this.k.grace, this.k.rz(rate?.key ?? NO_RATE), this.k.rh(rate?.key ?? NO_RATE)];
    for (const s of r.scopes) keys.push(this.k.b(s), this.k.z(s));
    const leaseUntil = Math.min(r.leaseUntilMs, r.wallMs + this.opts.leaseMs);
    for (let attempt = 0; ; attempt++) {
      const out = (await this.run(() => this.cmd.admit(
        keys.length, ...keys, r.nowMs, r.requestId, rate?.windowMs ?? 0, rate?.rpmLimit ?? -1, rate?.tpmLimit ?? -1,
        rate?.tokens ?? 0, r.costMicro.toString(), leaseUntil, r.wallMs, r.stateTtlMs, this.epoch,
      ))) as (string | number)[];
      const tag = String(out[0]);
      if (tag === 'epoch' && attempt < 3) {
        await this.restore();
        continue;
      }
      if (tag === 'restoring' && attempt < 3) {
        await new Promise((res) => setTimeout(res, Math.min(Number(out[1]), this.opts.restoreGraceMs) + 5));
        continue;
      }
      if (tag === 'epoch' || tag === 'restoring') throw new DependencyDown('redis', new Error('Redis keeps losing its state'));
      if (tag === 'load') return { kind: 'load', scopes: out.slice(1).map((i) => r.scopes[Number(i) - 1]!) };
      const view = { requests: Number(out[1]), tokens: Number(out[2]), resetRequestsMs: Number(out[3]), resetTokensMs: Number(out[4]) };
      if (tag === 'ok') {
        this.mirror.admitted(r.requestId, { scopes: r.scopes, amountMicro: r.costMicro, maxUntilMs: r.leaseUntilMs },
          rate ? { key: rate.key, atMs: r.nowMs, tokens: rate.tokens, windowMs: rate.windowMs } : undefined);
        return { kind: 'ok', rate: { ...view, resetTokensMs: view.resetRequestsMs } };
      }
      if (tag === 'rpm' || tag === 'tpm') return { kind: tag, rate: view, retryAfterMs: Number(out[4]) };
      return { kind: 'budget', scope: r.scopes[Number(out[5]) - 1]!, availableMicro: BigInt(String(out[6])), rate: view };
    }
  }

  async generation(scope: BudgetScope): Promise<string> {
    return (await this.run(() => this.redis.hget(this.k.b(scope), 'gen'))) ?? '0';
  }

  async load(scope: BudgetScope, gen: string, baseMicro: bigint, wallMs: number, stateTtlMs: number): Promise<void> {
    await this.run(() => this.cmd.load(1, this.k.b(scope), gen, baseMicro.toString(), wallMs, stateTtlMs));
  }

  async settle(s: SettleRequest): Promise<void> {
    this.mirror.settled(s.requestId, s.rate);
    const keys = [this.k.rh(s.rate?.key ?? NO_RATE)];
    for (const sc of s.scopes) keys.push(this.k.b(sc), this.k.z(sc));
    try {
      await this.run(() => this.cmd.settle(keys.length, ...keys, s.requestId, s.rate ? String(s.rate.tokensUsed) : '', s.actualMicro.toString()));
    } catch (err) {
      // The charge is in the ledger; the lease expires by itself (no longer renewed), and the
      // scopes are read again from the ledger once Redis answers.
      if (!(err instanceof DependencyDown)) throw err;
      for (const sc of s.scopes) this.stale.set(scopeKey(sc), sc);
    }
  }

  async applyPosted(deltas: ScopeDelta[]): Promise<void> {
    if (!deltas.length) return;
    try {
      await this.run(() => this.cmd.apply(deltas.length, ...deltas.map((d) => this.k.b(d.scope)), ...deltas.map((d) => d.deltaMicro.toString())));
    } catch (err) {
      if (!(err instanceof DependencyDown)) throw err;
      for (const d of deltas) this.stale.set(scopeKey(d.scope), d.scope);
    }
  }

  async invalidate(scope: BudgetScope): Promise<void> {
    try {
      await this.run(() => this.cmd.invalidate(1, this.k.b(scope)));
    } catch (err) {
      if (!(err instanceof DependencyDown)) throw err;
      this.stale.set(scopeKey(scope), scope);
    }
  }

  private async flushStale(): Promise<void> {
    for (const [k, scope] of this.stale) {
      this.stale.delete(k);
      await this.invalidate(scope).catch(() => {});
    }
  }

  async reservedMicro(scope: BudgetScope, wallMs: number): Promise<bigint> {
    return BigInt(String(await this.run(() => this.cmd.reserved(2, this.k.b(scope), this.k.z(scope), wallMs))));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
