// A member's model-access policy (Gantry's; rules in ./README.md): the key policy's shape,
// set on a member, binding every key the member has and will have. A call passes only if its
// key's policy, its member's policy and the team's enabled models all allow the model.
import type { Ctx } from '../context.ts';
import * as q from '../../store/restrictions.ts';
import { requireMember } from '../accounts/members.ts';
import { assertMayActOn, assertNotOwnLimit, can, type Principal } from '../roles.ts';
import { roleRefused } from '../errors.ts';
import {
  DEFAULT_POLICY, anyCallable, assertModelsUsable, normalizePolicy, policyAllows, usableIds, withoutLists,
  type Policy, type PolicyInput,
} from './policy.ts';

function view(memberId: string, policy: Policy, row: q.MemberPolicyRow | undefined, usable: Set<string>, withLists: boolean) {
  return {
    memberId,
    policy: withLists ? policy : withoutLists(policy),
    policyStatus: anyCallable(policy, usable) ? 'active' : 'no_available_models',
    allowedModelCount: policy.allowedModels.length,
    excludedModelCount: policy.excludedModels.length,
    updatedAt: row?.updatedAtS ?? 0,
    updatedBy: row?.updatedBy ?? '',
    // What the member's keys may call at most (each key's own policy may narrow it further).
    ...(withLists ? { callableModels: [...usable].filter((id) => policyAllows(policy, id)).sort() } : {}),
  };
}

function assertMayWrite(p: Principal, what: string): void {
  if (!can(p.role, 'writePolicy')) throw roleRefused(p.role, `only a team Owner or Admin may ${what}`);
}

export async function getMemberPolicy(ctx: Ctx, p: Principal, memberId: string) {
  await requireMember(ctx, p.teamId, memberId);
  const full = can(p.role, 'writePolicy');
  // As for key policies: a Developer reads only its own, without the model lists.
  if (!full && !(p.role === 'Developer' && memberId === p.memberId)) {
    throw roleRefused(p.role, `role ${p.role} may not read this member's policy`);
  }
  const [row, usable] = await Promise.all([q.findMemberPolicy(ctx.db, memberId), usableIds(ctx, p.teamId)]);
  return view(memberId, row ? (row.policy as Policy) : DEFAULT_POLICY, row, usable, full);
}

export async function setMemberPolicy(ctx: Ctx, p: Principal, memberId: string, input: PolicyInput) {
  assertMayWrite(p, 'set a member policy');
  const member = await requireMember(ctx, p.teamId, memberId);
  assertMayActOn(p, member, 'set the model policy');
  assertNotOwnLimit(p, memberId, 'set its own member policy');
  const policy = normalizePolicy(input);
  const usable = await usableIds(ctx, p.teamId);
  assertModelsUsable(policy, usable);
  const row: q.MemberPolicyRow = { memberId, teamId: p.teamId, policy, updatedAtS: Math.floor(ctx.clock.nowMs() / 1000), updatedBy: p.memberId };
  await q.upsertMemberPolicy(ctx.db, row);
  ctx.changes.publish({ type: 'member.policy.changed', teamId: p.teamId, memberId }); // every replica's admission re-reads it
  return view(memberId, policy, row, usable, true);
}

export async function deleteMemberPolicy(ctx: Ctx, p: Principal, memberId: string): Promise<void> {
  assertMayWrite(p, 'delete a member policy');
  const member = await requireMember(ctx, p.teamId, memberId);
  assertMayActOn(p, member, 'delete the model policy');
  assertNotOwnLimit(p, memberId, 'delete its own member policy');
  await q.deleteMemberPolicy(ctx.db, memberId);
  ctx.changes.publish({ type: 'member.policy.changed', teamId: p.teamId, memberId });
}
