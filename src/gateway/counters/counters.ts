// Shared counters behind admission: per-minute request/token windows and budget state.
// Two implementations with one semantics: in-process (memory.ts, the embedded default) and
// Redis with Lua scripts (redis.ts) so limits and budgets hold across replicas.
//
// Budget state per scope (`t:<teamId>` the account balance, `m:<memberId>`, `k:<keyId>`):
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

export interface AdmitRequest {
  requestId: string;
  nowMs: number; // business clock: rate windows
  wallMs: number; // wall clock: leases and state freshness
  rate: RateCheck;
  scopes: string[]; // budget scopes in the order their refusal is reported
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
  | { kind: 'budget'; scope: string; availableMicro: bigint; rate: RateView }
  | { kind: 'load'; scopes: string[] };

export interface SettleRequest {
  requestId: string;
  rateKey: string;
  tokensUsed: number; // replaces what was counted up front in the token window
  scopes: string[];
  actualMicro: bigint; // 0 when nothing is billed
}

export interface ScopeDelta {
  scope: string;
  deltaMicro: bigint; // negative for a charge
}

export interface Counters {
  admit(r: AdmitRequest): Promise<AdmitResult>;
  generation(scope: string): Promise<string>;
  /** Set base from the ledger unless gen moved on or a fresh base is already there. */
  load(scope: string, gen: string, baseMicro: bigint, wallMs: number, stateTtlMs: number): Promise<void>;
  settle(s: SettleRequest): Promise<void>;
  /** Money moved outside the gateway (operator charges, top-ups, compute). */
  applyPosted(deltas: ScopeDelta[]): Promise<void>;
  invalidate(scope: string): Promise<void>;
  reservedMicro(scope: string, wallMs: number): Promise<bigint>;
  close(): Promise<void>;
}

export const teamScope = (teamId: string) => `t:${teamId}`;
export const memberScope = (memberId: string) => `m:${memberId}`;
export const keyScope = (keyId: string) => `k:${keyId}`;

/** When the oldest entries leave the window enough for `need` to fit under `limit`. */
export function tokensResetMs(entries: Array<{ atMs: number; tokens: number }>, used: number, need: number, limit: number, nowMs: number, windowMs: number): number {
  let u = used;
  for (const e of entries) {
    if (u + need <= limit) break;
    u -= e.tokens;
    if (u + need <= limit) return Math.max(0, e.atMs + windowMs - nowMs);
  }
  return u + need <= limit ? 0 : windowMs;
}
