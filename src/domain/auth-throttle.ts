// Failed authentication is throttled (issue 29): wrong API keys (Authorization or x-api-key),
// wrong operator tokens, console sessions that are not, failed console sign-ins, and an
// instance port's wrong keys, tickets and cookies (gateway/ports) are
// counted per client address and per key prefix, in fixed windows of the shared counters
// (in process, or Redis across replicas). Rules:
// - only failures count, and only when a credential was presented (no credential is no guess);
//   a success costs a Map size check and nothing else: no counter round trip;
// - the refusal (429 with Retry-After) comes BEFORE the credential is checked, so a correct
//   guess during a lockout is not confirmed; the failure that passes a limit is itself a 429;
// - an address over its limit is refused whatever it presents;
// - a prefix over its limit is refused only to addresses that have failed themselves in their
//   window: an attacker who knows a victim's key prefix (it is shown in key lists) cannot lock
//   the victim out from other addresses, while each attacking address gets one guess at it;
// - a lockout is known to this replica at once, to the others by the counter's announcement
//   (Redis pub/sub), or at the latest by their own next failure of that subject;
// - while Redis cannot be reached, failures are counted on this replica's own counters
//   (fail open to per-replica limits): authentication never depends on Redis.
import { AppError } from '../lib/errors.ts';
import { authThrottled } from './errors.ts';
import { sha256Hex } from '../lib/ids.ts';
import type { Clock } from '../lib/clock.ts';
import type { AuthThrottleConfig } from '../config.ts';

export interface FailureCount {
  /** failures in the subject's current window, this one included */
  n: number;
  /** when that window ends (clock ms) */
  untilMs: number;
}

/** Shared failure counts (adapters/counters/auth-failures*.ts): fixed windows from a subject's first failure, atomic across replicas. */
export interface AuthFailureCounter {
  /** Count one failure of each subject. A subject whose count reaches `limits[i]` is announced to every replica (onLock). */
  hit(subjects: string[], limits: number[], windowMs: number, nowMs: number): Promise<FailureCount[]>;
  /** A subject's failures in its current window (0 when none). */
  count(subject: string, nowMs: number): Promise<number>;
  /** Lockouts announced by other replicas. */
  onLock?(fn: (subject: string, untilMs: number) => void): void;
  close(): Promise<void>;
}

export interface AuthThrottleDeps {
  config: AuthThrottleConfig;
  clock: Clock;
  /** the shared counter (Redis when configured) */
  shared: AuthFailureCounter;
  /** this replica's own counter, used while the shared one cannot be reached */
  local: AuthFailureCounter;
  /** false while Redis is known to be down (dependency health): go to `local` without trying */
  sharedUp: () => boolean;
  onError?: (err: unknown) => void;
}

/** Locks kept by a replica at most (an attack from many addresses); the oldest go first. */
const MAX_LOCKS = 100_000;

/** The client address a failure counts against: IPv4 as is, IPv6 by its /64 (one subscriber's usual allocation). */
export function addressSubject(ip: string): string {
  if (ip.startsWith('::ffff:') && ip.includes('.')) return `a:${ip.slice(7)}`;
  if (!ip.includes(':')) return `a:${ip}`;
  const bare = ip.split('%')[0]!.toLowerCase();
  const [head = '', tail] = bare.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `a:${groups.slice(0, 4).map((g) => (Number.parseInt(g, 16) || 0).toString(16)).join(':')}::/64`;
}

/**
 * The key prefix a failure counts against: a hash of the first 7 characters of the presented
 * key or token (`Bearer ` left out), which are what a key's mask shows (`sk_AbCd...wxyz`), so a
 * prefix is one display group of keys. Hashed so that what a client sends never becomes a
 * Redis key name or a log line, and has one length.
 */
export function prefixSubject(credential: string): string {
  const secret = credential.trim().replace(/^bearer\s+/i, '');
  return `p:${sha256Hex(secret.slice(0, 7)).slice(0, 16)}`;
}

export function isAuthFailure(err: unknown): err is AppError {
  return err instanceof AppError && err.reason === 'UNAUTHORIZED';
}

function lockedUntil(locks: Map<string, number>, subject: string, now: number): number {
  const until = locks.get(subject);
  return until !== undefined && until > now ? until : 0;
}

export class AuthThrottle {
  private readonly d: AuthThrottleDeps;
  /** subject → end of its lockout (clock ms), addresses and prefixes apart (a prefix is hashed only while one is locked) */
  private readonly addressLocks = new Map<string, number>();
  private readonly prefixLocks = new Map<string, number>();

  constructor(d: AuthThrottleDeps) {
    this.d = d;
    d.shared.onLock?.((subject, untilMs) => this.lock(subject, untilMs));
  }

  /** No lockout is in force on this replica: check() would pass whatever it is given. */
  get idle(): boolean {
    return this.addressLocks.size === 0 && this.prefixLocks.size === 0;
  }

  /**
   * Before a presented credential is checked (`credential`: the key or token as sent, or
   * undefined for a session cookie): throws (or rejects with) the 429 while its address is
   * locked out, or its prefix is and the address has failed itself. Synchronous, and nothing
   * but a size check, while no lockout is in force.
   */
  check(address: string, credential: string | undefined): Promise<void> | undefined {
    if (this.idle) return undefined;
    const now = this.d.clock.nowMs();
    this.prune(this.addressLocks, now);
    this.prune(this.prefixLocks, now);
    const a = addressSubject(address);
    const aUntil = lockedUntil(this.addressLocks, a, now);
    if (aUntil !== 0) throw this.refusal('address', aUntil - now);
    if (!credential || this.prefixLocks.size === 0) return undefined;
    const pUntil = lockedUntil(this.prefixLocks, prefixSubject(credential), now);
    if (pUntil === 0) return undefined;
    return this.countOf(a, now).then((n) => {
      if (n > 0) throw this.refusal('prefix', pUntil - now);
    });
  }

  /**
   * Count a failed attempt (`err`, an UNAUTHORIZED); resolves to what to answer: `err`, or
   * the 429 when this failure passed a limit.
   */
  async failed(address: string, credential: string | undefined, err: AppError): Promise<AppError> {
    const { perAddress, perPrefix, windowMs } = this.d.config;
    if (perAddress === 0 && perPrefix === 0) return err;
    // the address is counted even without a limit of its own: the prefix rule asks whether it failed
    const rules: { subject: string; limit: number; scope: 'address' | 'prefix' }[] = [{ subject: addressSubject(address), limit: perAddress, scope: 'address' }];
    if (credential && perPrefix > 0) rules.push({ subject: prefixSubject(credential), limit: perPrefix, scope: 'prefix' });
    const now = this.d.clock.nowMs();
    const counts = await this.hit(rules.map((r) => r.subject), rules.map((r) => r.limit), windowMs, now);
    let answer = err;
    counts.forEach((c, i) => {
      const r = rules[i]!;
      if (r.limit === 0) return; // 0: no limit
      if (c.n >= r.limit) this.lock(r.subject, c.untilMs);
      if (c.n > r.limit && answer === err) answer = this.refusal(r.scope, c.untilMs - now);
    });
    return answer;
  }

  /**
   * A credential's check under the throttle, synchronous while no lockout is in force and
   * `attempt` is (a cached key: the hot path): refused (429) before `attempt` while the address
   * or prefix is locked out, and counted when it fails. `credential`: the key or token as sent,
   * or undefined for a pass of Gantry's own (a session or port cookie, a ticket), which counts
   * against the address only. `address` is read only when needed (behind a trusted proxy it
   * parses X-Forwarded-For).
   */
  attempt<T>(address: () => string, credential: string | undefined, attempt: () => T): T | Promise<Awaited<T>> {
    const locked = this.idle ? undefined : this.check(address(), credential); // throws the 429 while the address is locked out
    // (a promise of T settles to Awaited<T>: the casts say so to the compiler)
    if (locked !== undefined) return locked.then(attempt).catch((err: unknown) => this.refused(address, credential, err)) as Promise<Awaited<T>>;
    let out: T;
    try {
      out = attempt();
    } catch (err) {
      return this.refused(address, credential, err);
    }
    // nothing is allocated on the way of a success that needed no promise (the model hot path)
    return out instanceof Promise ? (out.catch((err: unknown) => this.refused(address, credential, err)) as Promise<Awaited<T>>) : out;
  }

  /** A failed attempt: a wrong credential is counted (and may be answered 429 instead); any other error passes. */
  private refused(address: () => string, credential: string | undefined, err: unknown): Promise<never> {
    if (!isAuthFailure(err)) return Promise.reject(err);
    return this.failed(address(), credential, err).then((answer) => Promise.reject(answer));
  }

  /** `attempt` under the throttle (an async check of a credential: the console's sign-in). */
  async guard<T>(address: string, credential: string | undefined, attempt: () => Promise<T>): Promise<T> {
    if (!credential?.trim()) return attempt(); // nothing presented is no guess
    await this.check(address, credential);
    try {
      return await attempt();
    } catch (err) {
      if (isAuthFailure(err)) throw await this.failed(address, credential, err);
      throw err;
    }
  }

  private async hit(subjects: string[], limits: number[], windowMs: number, now: number): Promise<{ n: number; untilMs: number }[]> {
    if (this.d.shared !== this.d.local && this.d.sharedUp()) {
      try {
        return await this.d.shared.hit(subjects, limits, windowMs, now);
      } catch (err) {
        this.d.onError?.(err); // counted here until the shared counter answers again
      }
    }
    return this.d.local.hit(subjects, limits, windowMs, now);
  }

  private async countOf(subject: string, now: number): Promise<number> {
    if (this.d.shared !== this.d.local && this.d.sharedUp()) {
      try {
        return await this.d.shared.count(subject, now);
      } catch (err) {
        this.d.onError?.(err);
      }
    }
    return this.d.local.count(subject, now);
  }

  private lock(subject: string, untilMs: number): void {
    const locks = subject.startsWith('p:') ? this.prefixLocks : this.addressLocks;
    if ((locks.get(subject) ?? 0) >= untilMs) return;
    locks.delete(subject); // re-inserted last: the map stays roughly in expiry order
    locks.set(subject, untilMs);
    if (locks.size > MAX_LOCKS) this.prune(locks, this.d.clock.nowMs());
  }

  /** Drop ended lockouts from the front (oldest first), and the oldest beyond MAX_LOCKS. */
  private prune(locks: Map<string, number>, now: number): void {
    for (const [subject, until] of locks) {
      if (until > now && locks.size <= MAX_LOCKS) break;
      locks.delete(subject);
    }
  }

  private refusal(scope: 'address' | 'prefix', ms: number): AppError {
    return authThrottled(scope, Math.max(1, Math.ceil(ms / 1000)));
  }
}
