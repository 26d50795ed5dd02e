import { invalid, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Ctx } from '../context.ts';
import * as q from '../../store/accounts.ts';
import { TIERS, type Tier } from '../quotas/tiers.ts';
import { addMemberTx, validateEmail } from './members.ts';
import type { TeamStatus } from './codes.ts';
import { requireModel } from '../models/models.ts';
import type { Tx } from '../../store/db.ts';


export interface CreateTeamInput {
  name: string;
  ownerEmail: string;
  tier?: string | undefined;
}

export async function createTeam(ctx: Ctx, input: CreateTeamInput): Promise<{ userId: string; ownerMemberId: string }> {
  validateTeam(input);
  return ctx.db.transaction((tx) => createTeamTx(tx, ctx.clock.nowMs(), input));
}

function validateTeam(input: CreateTeamInput): void {
  if (!input.name.trim()) throw invalid('name', 'must not be empty');
  if (!TIERS.includes((input.tier ?? 'T1') as Tier)) throw invalid('tier', `must be one of ${TIERS.join(', ')}`);
  validateEmail(input.ownerEmail, 'ownerEmail');
}

/** A team and its Owner in the caller's transaction; `ownerPersonId`: the person who holds the Owner's seat (a sign-up's own team). */
export async function createTeamTx(tx: Tx, now: number, input: CreateTeamInput, ownerPersonId?: string): Promise<{ userId: string; ownerMemberId: string }> {
  validateTeam(input);
  const userId = newId('team', now);
  await q.insertTeam(tx, { id: userId, name: input.name.trim(), tier: input.tier ?? 'T1', createdAt: new Date(now) });
  const ownerMemberId = await addMemberTx(tx, now, userId, { email: input.ownerEmail, role: 'Owner', personId: ownerPersonId });
  return { userId, ownerMemberId };
}

export async function requireTeam(ctx: Ctx, userId: string): Promise<q.TeamRow> {
  const team = await q.findTeam(ctx.db, userId);
  if (!team) throw notFound('team', userId);
  return team;
}

export async function setTeamStatus(ctx: Ctx, userId: string, status: TeamStatus): Promise<void> {
  await requireTeam(ctx, userId);
  await q.updateTeam(ctx.db, userId, { status });
  ctx.changes.publish({ type: 'team.changed', teamId: userId });
}

export async function setTeamTier(ctx: Ctx, userId: string, tier: string): Promise<void> {
  if (!TIERS.includes(tier as Tier)) throw invalid('tier', `must be one of ${TIERS.join(', ')}`);
  await requireTeam(ctx, userId);
  await q.updateTeam(ctx.db, userId, { tier });
  ctx.changes.publish({ type: 'team.changed', teamId: userId });
}

export async function setCreditLimit(ctx: Ctx, userId: string, creditLimitUnits: bigint): Promise<void> {
  if (creditLimitUnits < 0n) throw invalid('creditLimit', 'must be >= 0');
  await requireTeam(ctx, userId);
  await q.updateTeam(ctx.db, userId, { creditLimitMicro: creditLimitUnits * 1_000_000n });
  ctx.changes.publish({ type: 'team.changed', teamId: userId }); // the spendable balance moved
}

/** Models enabled for the team (null: every available model, the default). */
export async function setEnabledModels(ctx: Ctx, userId: string, modelIds: string[] | null): Promise<void> {
  await requireTeam(ctx, userId);
  const ids = modelIds === null ? null : [...new Set(modelIds)];
  for (const [i, id] of (ids ?? []).entries()) {
    if ((await requireModel(ctx, id)).status === 'retired') throw invalid(`enabledModels[${i}]`, `model ${id} is retired`);
  }
  await q.updateTeam(ctx.db, userId, { enabledModels: ids });
  ctx.changes.publish({ type: 'team.changed', teamId: userId });
}

export function teamView(t: q.TeamRow) {
  return {
    userId: t.id,
    name: t.name,
    status: t.status,
    tier: t.tier,
    enabledModels: t.enabledModels ?? null,
    createdAt: String(Math.floor(t.createdAt.getTime() / 1000)),
  };
}

export async function listAllTeams(ctx: Ctx) {
  return (await q.listTeams(ctx.db)).map(teamView);
}
