// What the gateway caches for its hot path, read from the store in one place: the
// catalogue, a key's policy, a team's limits, budget settings, and the spendable amount of
// a budget scope (the base the shared counters start from).
import type { Ctx } from '../context.ts';
import { monthPeriod } from '../../lib/clock.ts';
import { unitsToMicro } from '../../lib/money.ts';
import { listModels, type ModelRow } from '../../store/models.ts';
import { findTeam, type TeamRow } from '../../store/accounts.ts';
import { budgetsWithSpend, findBudget, type BudgetRow } from '../../store/budgets.ts';
import { listOverrides, listQuotaDefinitions, type QuotaDefRow } from '../../store/quotas.ts';
import { spendableMicro } from '../billing/balance.ts';
import { currentQuotaOf, effectiveTier } from '../quotas/quotas.ts';
import { loadPolicy, type Policy } from '../policy/policy.ts';
import type { Tier } from '../quotas/tiers.ts';

export type { ModelRow, TeamRow, BudgetRow, Policy };

export async function loadCatalogue(ctx: Ctx): Promise<Map<string, ModelRow>> {
  return new Map((await listModels(ctx.db)).map((m) => [m.id, m]));
}

export async function loadKeyPolicy(ctx: Ctx, keyId: string): Promise<Policy> {
  return (await loadPolicy(ctx, keyId)).policy;
}

export interface TeamLimits {
  team: TeamRow | undefined;
  tier: Tier;
  /** Per model: the account's current RPM and TPM (null: no such quota defined). */
  limits: Map<string, { rpm: number | null; tpm: number | null }>;
}

export async function loadTeamLimits(ctx: Ctx, teamId: string): Promise<TeamLimits> {
  const team = await findTeam(ctx.db, teamId);
  if (!team) return { team, tier: 'T1', limits: new Map() };
  const [tier, defs, overrides] = await Promise.all([effectiveTier(ctx, teamId), listQuotaDefinitions(ctx.db, {}), listOverrides(ctx.db, teamId)]);
  const ov = new Map(overrides.map((o) => [`${o.model}\u0000${o.quotaType}`, o.currentQuota]));
  const limits = new Map<string, { rpm: number | null; tpm: number | null }>();
  for (const d of defs as QuotaDefRow[]) {
    if (d.quotaType !== 'RPM' && d.quotaType !== 'TPM') continue;
    const entry = limits.get(d.model) ?? { rpm: null, tpm: null };
    const v = Number(currentQuotaOf(d, tier, ov.get(`${d.model}\u0000${d.quotaType}`)));
    if (d.quotaType === 'RPM') entry.rpm = v;
    else entry.tpm = v;
    limits.set(d.model, entry);
  }
  return { team, tier, limits };
}

export async function loadBudgetSetting(ctx: Ctx, scope: 'member' | 'key', subjectId: string): Promise<BudgetRow | null> {
  return (await findBudget(ctx.db, scope, subjectId)) ?? null;
}

/** No budget: a base so large it never refuses (Lua compares doubles; 2^52 stays exact). */
export const UNLIMITED_BASE_MICRO = 2n ** 52n;

/**
 * What a scope may still spend per the ledger: `t:` the team's spendable balance without
 * live reservations; `m:`/`k:` the budget limit minus the period's settled spend.
 */
export async function loadScopeBase(ctx: Ctx, teamId: string, scope: string): Promise<bigint> {
  const [kind, id] = [scope.slice(0, 1), scope.slice(2)];
  if (kind === 't') {
    const team = await findTeam(ctx.db, id);
    return team ? spendableMicro(team, 0n) : 0n;
  }
  const month = new Date(monthPeriod(ctx.clock.nowMs()).startMs);
  const [row] = await budgetsWithSpend(ctx.db, teamId, kind === 'k' ? 'key' : 'member', month, id);
  if (!row) return UNLIMITED_BASE_MICRO;
  return unitsToMicro(row.limitUnits) - row.spentMicro;
}
