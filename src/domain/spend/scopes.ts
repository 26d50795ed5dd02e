// What money is counted against: the account's spendable balance, a member's budget, an API
// key's budget. A typed value everywhere; `scopeKey` is its name in maps and Redis keys.
export const SCOPE_KINDS = ['team', 'member', 'key'] as const;
export type ScopeKind = (typeof SCOPE_KINDS)[number];

export interface BudgetScope {
  kind: ScopeKind;
  id: string;
}

export const teamScope = (id: string): BudgetScope => ({ kind: 'team', id });
export const memberScope = (id: string): BudgetScope => ({ kind: 'member', id });
export const keyScope = (id: string): BudgetScope => ({ kind: 'key', id });

/** A stable string for a scope (`team:<id>`), for map keys and Redis key names. */
export function scopeKey(s: BudgetScope): string {
  return `${s.kind}:${s.id}`;
}

/** Who pays for a piece of work: the account, and the member and key that started it (if any). */
export interface Payer {
  teamId: string;
  memberId: string | null;
  keyId: string | null;
}

/** A change of what a scope may still spend (negative: spent or set aside). */
export interface ScopeDelta {
  scope: BudgetScope;
  deltaMicro: bigint;
}

/** The scopes a charge or hold of `payer` moves, with the same signed amount each. */
export function deltasOf(payer: Payer, deltaMicro: bigint, opts: { budgets: boolean }): ScopeDelta[] {
  const out: ScopeDelta[] = [{ scope: teamScope(payer.teamId), deltaMicro }];
  if (opts.budgets && payer.memberId) out.push({ scope: memberScope(payer.memberId), deltaMicro });
  if (opts.budgets && payer.keyId) out.push({ scope: keyScope(payer.keyId), deltaMicro });
  return out;
}
