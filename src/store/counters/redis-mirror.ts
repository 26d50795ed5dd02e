// What one replica holds in the Redis counters, kept in its own memory as well: its live
// reservations (with the scopes they were taken from) and the rate-window entries of the
// requests it admitted within the window. Redis can lose everything (restarted empty, failed
// over to an empty replica); each replica then puts back what this mirror holds before
// anything new is admitted, so no budget, balance or rate limit admits more than it would
// have without the loss. The same list drives lease renewal.
import type { BudgetScope } from '../../domain/spend/scopes.ts';

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

export class RedisMirror {
  readonly leases = new Map<string, MirroredLease>();
  readonly rates = new Map<string, MirroredRate>();

  admitted(requestId: string, lease: MirroredLease, rate: MirroredRate | undefined): void {
    this.leases.set(requestId, lease);
    if (rate) this.rates.set(requestId, rate);
  }

  settled(requestId: string, tokensUsed: number | undefined): void {
    this.leases.delete(requestId);
    const r = this.rates.get(requestId);
    if (r && tokensUsed !== undefined) r.tokens = tokensUsed; // the window counts the real figure now
  }

  /** Drop rate entries that left their window, and leases past their last renewal. */
  prune(nowMs: number, wallMs: number): void {
    for (const [id, r] of this.rates) if (r.atMs <= nowMs - r.windowMs) this.rates.delete(id);
    for (const [id, l] of this.leases) if (l.maxUntilMs <= wallMs) this.leases.delete(id);
  }
}
