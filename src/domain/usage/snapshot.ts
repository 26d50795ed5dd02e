// What the gateway caches for its hot path, read from the store in one place: the
// catalogue, a key's policy, a member's policy and a team's limits. (Budget state: domain/spend.)
import type { Ctx } from '../context.ts';
import { listModels, type ModelRow } from '../../store/models.ts';
import { findTeam, type TeamRow } from '../../store/accounts.ts';
import { listOverrides, listQuotaDefinitions, type QuotaDefRow } from '../../store/quotas.ts';
import { currentQuotaOf, effectiveTier } from '../quotas/quotas.ts';
import { loadMemberPolicy, loadPolicy, type Policy } from '../policy/policy.ts';
import type { Tier } from '../quotas/tiers.ts';

export type { ModelRow, TeamRow, Policy };

export async function loadCatalogue(ctx: Ctx): Promise<Map<string, ModelRow>> {
  return new Map((await listModels(ctx.db)).map((m) => [m.id, m]));
}

export async function loadKeyPolicy(ctx: Ctx, keyId: string): Promise<Policy> {
  return (await loadPolicy(ctx, keyId)).policy;
}

export { loadMemberPolicy };

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
