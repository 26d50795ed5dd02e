// Quota definitions (per model and quota type, values per tier) and per-team overrides.
// Values are int64: carried as bigint inside and as JSON strings at the interface.
import { invalid, notFound } from '../../lib/errors.ts';
import { parseUInt64 as parseInt64 } from '../../lib/int64.ts';
import { MICRO_PER_UNIT } from '../../lib/money.ts';
import type { Ctx } from '../context.ts';
import * as q from '../../store/quotas.ts';
import { findTeam } from '../../store/accounts.ts';
import { TIERS, maxTier, tierForMonthlyTopup, type Tier } from './tiers.ts';

export const QUOTA_TYPES = ['RPM', 'TPM', 'IPM'] as const;
export type QuotaType = (typeof QUOTA_TYPES)[number];
export interface QuotaDefinitionInput {
  model: string;
  modal: string;
  quotaType: string;
  productType: string;
  defaultQuota: unknown;
  tiers: Record<string, unknown>;
  adjustable: boolean;
}

export async function upsertQuotaDefinition(ctx: Ctx, input: QuotaDefinitionInput): Promise<q.QuotaDefRow> {
  if (!input.model) throw invalid('model', 'must not be empty');
  if (!(QUOTA_TYPES as readonly string[]).includes(input.quotaType)) throw invalid('quotaType', `must be one of ${QUOTA_TYPES.join(', ')}`);
  if (!input.modal) throw invalid('modal', 'must not be empty');
  if (!input.productType) throw invalid('productType', 'must not be empty');
  const tiers: Record<string, string> = {};
  for (const key of Object.keys(input.tiers)) {
    if (!TIERS.includes(key as Tier)) throw invalid(`tiers.${key}`, `tier must be one of ${TIERS.join(', ')}`);
  }
  for (const t of TIERS) {
    if (input.tiers[t] === undefined) throw invalid(`tiers.${t}`, 'required: give a value for every tier T1-T5');
    tiers[t] = parseInt64(input.tiers[t], `tiers.${t}`).toString();
  }
  const row: q.QuotaDefRow = {
    model: input.model, quotaType: input.quotaType, modal: input.modal, productType: input.productType,
    defaultQuota: parseInt64(input.defaultQuota, 'defaultQuota'), tiers, adjustable: input.adjustable,
  };
  await q.upsertQuotaDefinition(ctx.db, row);
  ctx.changes.publish({ type: 'catalogue.changed' }); // every team's limits derive from it
  return row;
}

export async function setQuotaOverride(ctx: Ctx, teamId: string, model: string, quotaType: string, currentQuota: unknown | null): Promise<void> {
  if (!(await findTeam(ctx.db, teamId))) throw notFound('team', teamId);
  // An override changes a defined quota for one team; without a definition there is nothing
  // the gateway would enforce or the quota list would show, so say what to do first.
  if (!(await q.findQuotaDefinition(ctx.db, model, quotaType))) {
    throw invalid('model', `${model} has no ${quotaType} quota definition: create one first (POST /admin/v1/quotas, gantry admin quotas set)`);
  }
  if (currentQuota === null) await q.deleteOverride(ctx.db, teamId, model, quotaType);
  else await q.upsertOverride(ctx.db, teamId, model, quotaType, parseInt64(currentQuota, 'currentQuota'));
  ctx.changes.publish({ type: 'team.changed', teamId });
}

/** Effective tier: the operator's tier or the one earned by a month's top-ups (this and the two previous months). */
export async function effectiveTier(ctx: Ctx, teamId: string): Promise<Tier> {
  const team = await findTeam(ctx.db, teamId);
  if (!team) throw notFound('team', teamId);
  const now = new Date(ctx.clock.nowMs());
  const since = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 1));
  let tier = team.tier as Tier;
  for (const micro of await q.monthlyTopups(ctx.db, teamId, since)) tier = maxTier(tier, tierForMonthlyTopup(micro / MICRO_PER_UNIT));
  return tier;
}

export function currentQuotaOf(def: q.QuotaDefRow, tier: Tier, override: bigint | undefined): bigint {
  if (override !== undefined) return override;
  const v = def.tiers[tier];
  return v !== undefined ? BigInt(v) : def.defaultQuota;
}

/**
 * Model ids hold a slash and the interface has clients URL-encode it. The query string is
 * decoded once by the server; a client that encodes the id and then hands it to an HTTP
 * library that encodes again leaves `%2F` behind. Model ids never contain `%XX`, so a value
 * still carrying escapes is decoded once more (and kept as is if that fails, or if it
 * decodes to control characters, which no model id has and the store would refuse: `%00`).
 */
export function normalizeQuotaObject(v: string | undefined): string | undefined {
  if (!v || !/%[0-9A-Fa-f]{2}/.test(v)) return v;
  try {
    const decoded = decodeURIComponent(v);
    return /\p{Cc}/u.test(decoded) ? v : decoded; // a control character (a NUL from %2500) is no model id
  } catch {
    return v;
  }
}

export async function listTeamQuotas(ctx: Ctx, teamId: string, filter: q.QuotaFilter) {
  const [defs, overrides, tier] = await Promise.all([
    q.listQuotaDefinitions(ctx.db, { ...filter, quotaObject: normalizeQuotaObject(filter.quotaObject) }), q.listOverrides(ctx.db, teamId), effectiveTier(ctx, teamId),
  ]);
  const ov = new Map(overrides.map((o) => [`${o.model}\u0000${o.quotaType}`, o.currentQuota]));
  const data = defs.map((d) => ({
    modal: d.modal,
    quotaObject: d.model,
    quotaType: d.quotaType,
    productType: d.productType,
    currentQuota: currentQuotaOf(d, tier, ov.get(`${d.model}\u0000${d.quotaType}`)).toString(),
    defaultQuota: d.defaultQuota.toString(),
    adjustable: d.adjustable,
    quotaItems: TIERS.map((t) => ({ tier: t, quota: d.tiers[t] ?? d.defaultQuota.toString() })),
  }));
  return { data, total: data.length };
}
