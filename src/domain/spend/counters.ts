// The shared counters behind admission (a port): per-minute request/token windows and
// budget state. Two implementations with one semantics, in src/adapters/counters/: in-process
// (memory.ts, the embedded default) and Redis with Lua scripts (redis.ts) so limits and
// budgets hold across replicas.
//
// Budget state per scope (scopes.ts: the account balance, a member's or a key's budget):
//   base  what the ledger says may still be spent (limit − settled spend, or spendable
//         balance), loaded from the database and then kept in step by settlements;
//   res   the sum of live reservations (each a lease that expires if its holder dies);
//   debt  settled charges that arrived while base was not loaded; subtracted when it is.
// available = base − res. A reservation succeeds only if every scope can cover it, and
// then it is taken from all of them in the same atomic step.
//
// Loading protocol (why nothing is ever lost): read gen → read the ledger → load(gen, base).
// A settlement commits to the database first and only then updates the counters, going to
// `debt` when base is absent; load() sets base = ledger − debt. A charge is thus counted at
// least once (twice at worst, which is conservative and fixed at the next reload).
// invalidate() bumps gen so a load that read the ledger before a budget change is refused.

export interface RateCheck {
  key: string; // team + model
  rpmLimit: number | null;
  tpmLimit: number | null;
  tokens: number; // prompt estimate + maximum output, counted up front
  windowMs: number;
}

import type { BudgetScope, ScopeDelta } from './scopes.ts';

export type { BudgetScope, ScopeDelta };

export interface AdmitRequest {
  requestId: string;
  nowMs: number; // business clock: rate windows
  wallMs: number; // wall clock: leases and state freshness
  /** Model calls count against RPM/TPM; other spend (GPU time, terms) has no rate. */
  rate?: RateCheck | undefined;
  scopes: BudgetScope[]; // budget scopes in the order their refusal is reported
  costMicro: bigint;
  leaseUntilMs: number;
  stateTtlMs: number;
}

export interface RateView {
  requests: number; // in the window, this request included when admitted
  tokens: number;
  resetRequestsMs: number;
  resetTokensMs: number;
}

export type AdmitResult =
  | { kind: 'ok'; rate: RateView }
  | { kind: 'rpm' | 'tpm'; rate: RateView; retryAfterMs: number }
  | { kind: 'budget'; scope: BudgetScope; availableMicro: bigint; rate: RateView }
  | { kind: 'load'; scopes: BudgetScope[] };

export interface SettleRequest {
  requestId: string;
  /** The rate window the request was counted in, and the tokens it really used (model calls). */
  rate?: { key: string; tokensUsed: number } | undefined;
  scopes: BudgetScope[];
  actualMicro: bigint; // 0 when nothing is billed
}

export interface Counters {
  admit(r: AdmitRequest): Promise<AdmitResult>;
  generation(scope: BudgetScope): Promise<string>;
  /** Set base from the ledger unless gen moved on or a fresh base is already there. */
  load(scope: BudgetScope, gen: string, baseMicro: bigint, wallMs: number, stateTtlMs: number): Promise<void>;
  settle(s: SettleRequest): Promise<void>;
  /** Money moved outside a reservation (operator charges, top-ups, GPU metering, holds). */
  applyPosted(deltas: ScopeDelta[]): Promise<void>;
  invalidate(scope: BudgetScope): Promise<void>;
  reservedMicro(scope: BudgetScope, wallMs: number): Promise<bigint>;
  /** Connect and start background upkeep (shared counters only). */
  start?(): Promise<void>;
  /** Fails while the shared store cannot be reached (the dependency health probe). */
  ping?(): Promise<void>;
  close(): Promise<void>;
}

/** No rate check: an admission that counts against budgets only. */
export const NO_RATE_VIEW: RateView = { requests: 0, tokens: 0, resetRequestsMs: 0, resetTokensMs: 0 };

/** When the oldest entries leave the window enough for `need` to fit under `limit`. */
export function tokensResetMs(entries: Iterable<{ atMs: number; tokens: number }>, used: number, need: number, limit: number, nowMs: number, windowMs: number): number {
  let u = used;
  for (const e of entries) {
    if (u + need <= limit) break;
    u -= e.tokens;
    if (u + need <= limit) return Math.max(0, e.atMs + windowMs - nowMs);
  }
  return u + need <= limit ? 0 : windowMs;
}
