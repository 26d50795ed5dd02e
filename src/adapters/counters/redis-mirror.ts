// What one replica holds in the Redis counters, kept in its own memory as well: its live
// reservations (with the scopes they were taken from) and the rate-window entries of the
// requests it admitted within the window. Redis can lose everything (restarted empty, failed
// over to an empty replica); each replica then puts back what this mirror holds before
// anything new is admitted, so no budget, balance or rate limit admits more than it would
// have without the loss. The same list drives lease renewal.
import type { BudgetScope } from '../../domain/spend/scopes.ts';
import { RateLog } from './rate-log.ts';

export interface MirroredLease {
  scopes: BudgetScope[];
  amountMicro: bigint;
  /** renewal stops here: a reservation nobody settles cannot hold money for ever */
  maxUntilMs: number;
}

export interface MirroredRate {
  key: string;
  atMs: number; // business clock, as in the window
  tokens: number;
  windowMs: number;
}

/** One rate window's entries of this replica, compact (rate-log.ts): a minute of requests was a Map of objects. */
export interface MirroredWindow {
  log: RateLog;
  windowMs: number;
}

export class RedisMirror {
  readonly leases = new Map<string, MirroredLease>();
  /** by rate key */
  readonly rates = new Map<string, MirroredWindow>();

  admitted(requestId: string, lease: MirroredLease, rate: MirroredRate | undefined): void {
    this.leases.set(requestId, lease);
    if (!rate) return;
    let w = this.rates.get(rate.key);
    if (!w) {
      w = { log: new RateLog({ keepIds: true }), windowMs: rate.windowMs };
      this.rates.set(rate.key, w);
    }
    w.log.add(requestId, rate.atMs, rate.tokens);
  }

  settled(requestId: string, rate: { key: string; tokensUsed: number } | undefined): void {
    this.leases.delete(requestId);
    if (rate) this.rates.get(rate.key)?.log.settle(requestId, rate.tokensUsed); // the window counts the real figure now
  }

  /** Rate entries in all windows. */
  rateEntries(): number {
    let n = 0;
    for (const w of this.rates.values()) n += w.log.size;
    return n;
  }

  /** Drop rate entries that left their window (each walk stops at the first that did not), and leases past their last renewal. */
  prune(nowMs: number, wallMs: number): void {
    for (const [key, w] of this.rates) {
      w.log.evict(nowMs - w.windowMs);
      if (w.log.size === 0) this.rates.delete(key);
    }
    for (const [id, l] of this.leases) if (l.maxUntilMs <= wallMs) this.leases.delete(id);
  }
}
