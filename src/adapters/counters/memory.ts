// In-process counters: the embedded default. Same semantics as the Redis scripts
// (see domain/spend/counters.ts); everything happens in one synchronous step, so it is atomic.
import type { AdmitRequest, AdmitResult, BudgetScope, Counters, RateView, ScopeDelta, SettleRequest } from '../../domain/spend/counters.ts';
import { NO_RATE_VIEW, tokensResetMs } from '../../domain/spend/counters.ts';
import { scopeKey } from '../../domain/spend/scopes.ts';
import { RateLog } from './rate-log.ts';

interface Scope {
  base: bigint | null;
  atMs: number;
  gen: number;
  debt: bigint;
  res: bigint;
  leases: Map<string, { amount: bigint; untilMs: number }>;
  /** No lease ends before this (a lower bound: a lease settled early can leave it low, costing one needless sweep). */
  sweepAtMs: number;
}

export class MemoryCounters implements Counters {
  private readonly windows = new Map<string, RateLog>(); // entries in admission order = time order
  private readonly scopes = new Map<string, Scope>();

  private window(key: string, nowMs: number, windowMs: number): RateLog {
    let w = this.windows.get(key);
    if (!w) {
      w = new RateLog();
      this.windows.set(key, w);
    }
    w.evict(nowMs - windowMs);
    return w;
  }

  private scope(scope: BudgetScope, wallMs: number): Scope {
    const name = scopeKey(scope);
    let s = this.scopes.get(name);
    if (!s) {
      s = { base: null, atMs: 0, gen: 0, debt: 0n, res: 0n, leases: new Map(), sweepAtMs: Infinity };
      this.scopes.set(name, s);
    }
    // Every admission and settlement passes here; walking every lease in flight each time cost
    // O(requests in flight) per call. Leases end in no particular order (their lengths differ),
    // so the walk runs only once the earliest end has come, and finds the next earliest.
    if (wallMs >= s.sweepAtMs) {
      let next = Infinity;
      for (const [id, l] of s.leases) {
        if (l.untilMs > wallMs) {
          if (l.untilMs < next) next = l.untilMs;
          continue;
        }
        s.leases.delete(id);
        s.res -= l.amount;
      }
      s.sweepAtMs = next;
    }
    return s;
  }

  async admit(r: AdmitRequest): Promise<AdmitResult> {
    const { rate } = r;
    let view: RateView = NO_RATE_VIEW;
    let after: RateView = NO_RATE_VIEW;
    let w: RateLog | undefined;
    if (rate) {
      w = this.window(rate.key, r.nowMs, rate.windowMs);
      const firstAt = w.oldestAt();
      const resetRequestsMs = firstAt !== undefined ? Math.max(0, firstAt + rate.windowMs - r.nowMs) : 0;
      view = { requests: w.size, tokens: w.tokens, resetRequestsMs, resetTokensMs: resetRequestsMs };
      if (rate.rpmLimit !== null && w.size + 1 > rate.rpmLimit) {
        return { kind: 'rpm', rate: view, retryAfterMs: resetRequestsMs };
      }
      if (rate.tpmLimit !== null && w.tokens + rate.tokens > rate.tpmLimit) {
        const wait = tokensResetMs(w.entries(), w.tokens, rate.tokens, rate.tpmLimit, r.nowMs, rate.windowMs);
        return { kind: 'tpm', rate: { ...view, resetTokensMs: wait }, retryAfterMs: wait };
      }
      const resetAfter = resetRequestsMs || rate.windowMs; // an empty window frees this request's slot a window from now
      after = { requests: w.size + 1, tokens: w.tokens + rate.tokens, resetRequestsMs: resetAfter, resetTokensMs: resetAfter };
    }
    const scopes = r.scopes.map((sc) => this.scope(sc, r.wallMs));
    const missing: BudgetScope[] = [];
    scopes.forEach((s, i) => {
      if (s.base !== null && r.wallMs - s.atMs > r.stateTtlMs) s.base = null; // stale: settlements go to debt until reloaded
      if (s.base === null) missing.push(r.scopes[i]!);
    });
    if (missing.length) return { kind: 'load', scopes: missing };
    for (let i = 0; i < scopes.length; i++) {
      const available = scopes[i]!.base! - scopes[i]!.res;
      if (available < r.costMicro) return { kind: 'budget', scope: r.scopes[i]!, availableMicro: available, rate: view };
    }
    if (rate && w) w.add(r.requestId, r.nowMs, rate.tokens);
    for (const s of scopes) {
      s.leases.set(r.requestId, { amount: r.costMicro, untilMs: r.leaseUntilMs });
      s.res += r.costMicro;
      if (r.leaseUntilMs < s.sweepAtMs) s.sweepAtMs = r.leaseUntilMs;
    }
    return { kind: 'ok', rate: after };
  }

  async generation(scope: BudgetScope): Promise<string> {
    return String(this.scopes.get(scopeKey(scope))?.gen ?? 0);
  }

  async load(scope: BudgetScope, gen: string, baseMicro: bigint, wallMs: number, stateTtlMs: number): Promise<void> {
    const s = this.scope(scope, wallMs);
    if (String(s.gen) !== gen) return;
    if (s.base !== null && wallMs - s.atMs <= stateTtlMs) return;
    s.base = baseMicro - s.debt;
    s.debt = 0n;
    s.atMs = wallMs;
  }

  async settle(x: SettleRequest): Promise<void> {
    if (x.rate) this.windows.get(x.rate.key)?.settle(x.requestId, x.rate.tokensUsed);
    for (const sc of x.scopes) {
      const s = this.scope(sc, Date.now()); // created if absent: a settled charge must reach debt
      const lease = s.leases.get(x.requestId);
      if (lease) {
        s.leases.delete(x.requestId);
        s.res -= lease.amount;
      }
      if (x.actualMicro > 0n) {
        if (s.base !== null) s.base -= x.actualMicro;
        else s.debt += x.actualMicro;
      }
    }
  }

  async applyPosted(deltas: ScopeDelta[]): Promise<void> {
    for (const d of deltas) {
      // Created if absent: a load may be reading the ledger right now, before this commit.
      const s = this.scope(d.scope, Date.now());
      if (s.base !== null) s.base += d.deltaMicro;
      else if (d.deltaMicro < 0n) s.debt -= d.deltaMicro;
    }
  }

  async invalidate(scope: BudgetScope): Promise<void> {
    const s = this.scopes.get(scopeKey(scope));
    if (!s) return;
    s.gen += 1;
    s.base = null;
  }

  async reservedMicro(scope: BudgetScope, wallMs: number): Promise<bigint> {
    return this.scopes.has(scopeKey(scope)) ? this.scope(scope, wallMs).res : 0n;
  }

  async close(): Promise<void> {}
}
