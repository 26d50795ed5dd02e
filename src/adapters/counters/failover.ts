// Fail open (an operator's choice, GANTRY_REDIS_FAIL_OPEN): while Redis cannot be reached,
// this replica admits on its own in-process counters, whose budget state is loaded from the
// ledger like Redis's. What that allows is documented in docs/production.md ("When a dependency fails"): each replica enforces
// budgets, the balance and rate limits alone, so N replicas may together admit up to N times
// what remains of a budget (and N times an RPM/TPM limit) until Redis is back. A reservation
// is settled where it was taken. The default is to fail closed (503 naming Redis).
import type { AdmitRequest, AdmitResult, BudgetScope, Counters, ScopeDelta, SettleRequest } from '../../domain/spend/counters.ts';
import { DependencyDown } from '../../lib/dependencies.ts';
import { MemoryCounters } from './memory.ts';

export class FailOpenCounters implements Counters {
  private readonly primary: Counters;
  private readonly local = new MemoryCounters();
  /** requests admitted by the local counters while Redis was down */
  private readonly localIds = new Set<string>();
  private readonly isUp: () => boolean;
  /** admissions made locally (for /metrics: what was let through on per-replica counters) */
  admittedLocally = 0;

  constructor(primary: Counters, isUp: () => boolean) {
    this.primary = primary;
    this.isUp = isUp;
  }

  private async either<T>(fn: (c: Counters) => Promise<T>): Promise<T> {
    if (!this.isUp()) return fn(this.local);
    try {
      return await fn(this.primary);
    } catch (err) {
      if (!(err instanceof DependencyDown)) throw err;
      return fn(this.local);
    }
  }

  async admit(r: AdmitRequest): Promise<AdmitResult> {
    let local = !this.isUp();
    let out: AdmitResult;
    if (local) out = await this.local.admit(r);
    else {
      try {
        out = await this.primary.admit(r);
      } catch (err) {
        if (!(err instanceof DependencyDown)) throw err;
        local = true;
        out = await this.local.admit(r);
      }
    }
    if (local && out.kind === 'ok') {
      this.localIds.add(r.requestId);
      this.admittedLocally++;
    }
    return out;
  }

  generation(scope: BudgetScope): Promise<string> {
    return this.either((c) => c.generation(scope));
  }

  load(scope: BudgetScope, gen: string, baseMicro: bigint, wallMs: number, stateTtlMs: number): Promise<void> {
    return this.either((c) => c.load(scope, gen, baseMicro, wallMs, stateTtlMs));
  }

  async settle(s: SettleRequest): Promise<void> {
    if (this.localIds.delete(s.requestId)) return this.local.settle(s);
    return this.primary.settle(s);
  }

  async applyPosted(deltas: ScopeDelta[]): Promise<void> {
    await this.local.applyPosted(deltas);
    await this.primary.applyPosted(deltas);
  }

  async invalidate(scope: BudgetScope): Promise<void> {
    await this.local.invalidate(scope);
    await this.primary.invalidate(scope);
  }

  async reservedMicro(scope: BudgetScope, wallMs: number): Promise<bigint> {
    const mine = await this.local.reservedMicro(scope, wallMs);
    return mine + await this.either((c) => (c === this.local ? Promise.resolve(0n) : c.reservedMicro(scope, wallMs)));
  }

  async start(): Promise<void> {
    await this.primary.start?.();
  }

  async ping(): Promise<void> {
    await this.primary.ping?.();
  }

  async close(): Promise<void> {
    await this.primary.close();
  }
}
