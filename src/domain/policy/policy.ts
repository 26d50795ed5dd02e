// API-key model-access policies (interface: "Set API key model access policy").
import { invalid } from '../../lib/errors.ts';
import type { Ctx } from '../context.ts';
import * as q from '../../store/policies.ts';
import { findMemberPolicy } from '../../store/restrictions.ts';
import { findTeam } from '../../store/accounts.ts';
import { assertMayActOnKey, requireKey } from '../keys/keys.ts';
import { requireMember } from '../accounts/members.ts';
import { teamUsableModels } from '../models/models.ts';
import { assertNotOwnLimit, can, isRole, type Principal } from '../roles.ts';
import { roleRefused } from '../errors.ts';
import { modelNotUsable } from './errors.ts';

export const POLICY_MODES = ['all_enabled', 'selected'] as const;
export type PolicyMode = (typeof POLICY_MODES)[number];
export const MODEL_REF_TYPES = ['llm', 'multimodal'] as const;

export interface ModelRef {
  type: string;
  id: string;
}
export interface Policy {
  schemaVersion: number;
  productScope: 'model_api';
  mode: PolicyMode;
  allowedModels: ModelRef[];
  excludedModels: ModelRef[];
  source: { type: string };
}

export const DEFAULT_POLICY: Policy = {
  schemaVersion: 1, productScope: 'model_api', mode: 'all_enabled', allowedModels: [], excludedModels: [], source: { type: 'default' },
};

export interface PolicyInput {
  schemaVersion?: number | undefined;
  productScope?: string | undefined;
  mode: string;
  allowedModels?: ModelRef[] | undefined;
  excludedModels?: ModelRef[] | undefined;
  source?: unknown;
}

function dedupe(refs: ModelRef[], field: string): ModelRef[] {
  const seen = new Set<string>();
  const out: ModelRef[] = [];
  refs.forEach((r, i) => {
    if (!(MODEL_REF_TYPES as readonly string[]).includes(r.type)) throw invalid(`${field}[${i}].type`, `must be one of ${MODEL_REF_TYPES.join(', ')}`);
    if (!r.id) throw invalid(`${field}[${i}].id`, 'must not be empty');
    const k = `${r.type}\u0000${r.id}`;
    if (!seen.has(k)) {
      seen.add(k);
      out.push({ type: r.type, id: r.id });
    }
  });
  return out;
}

/** Rules 4 and 5: arrays that do not apply to the mode are stored empty, duplicates removed, source ignored. */
export function normalizePolicy(input: PolicyInput): Policy {
  if (input.schemaVersion !== undefined && input.schemaVersion !== 1) throw invalid('schemaVersion', 'must be 1');
  if (input.productScope !== undefined && input.productScope !== 'model_api') throw invalid('productScope', 'only model_api is supported');
  if (!(POLICY_MODES as readonly string[]).includes(input.mode)) throw invalid('mode', `must be one of ${POLICY_MODES.join(', ')}`);
  const mode = input.mode as PolicyMode;
  const allowed = mode === 'selected' ? dedupe(input.allowedModels ?? [], 'allowedModels') : [];
  const excluded = mode === 'all_enabled' ? dedupe(input.excludedModels ?? [], 'excludedModels') : [];
  if (mode === 'selected' && allowed.length === 0) throw invalid('allowedModels', 'mode=selected requires at least one model');
  return { schemaVersion: 1, productScope: 'model_api', mode, allowedModels: allowed, excludedModels: excluded, source: { type: 'private_policy' } };
}

/** Does the policy let the key call `modelId`? (Team enablement is checked separately.) */
export function policyAllows(policy: Policy, modelId: string): boolean {
  if (policy.mode === 'selected') return policy.allowedModels.some((m) => m.id === modelId);
  return !policy.excludedModels.some((m) => m.id === modelId);
}

/**
 * What two policies allow together, in the same shape: a call must pass both (a key's
 * policy and its member's). Selected ∩ anything keeps the selected models the other allows;
 * two all_enabled policies exclude what either excludes.
 */
export function intersectPolicies(a: Policy, b: Policy, source: string): Policy {
  if (a.mode === 'all_enabled' && b.mode === 'all_enabled') {
    const excluded = dedupe([...a.excludedModels, ...b.excludedModels], 'excludedModels');
    return { ...DEFAULT_POLICY, excludedModels: excluded, source: { type: source } };
  }
  const [sel, other] = a.mode === 'selected' ? [a, b] : [b, a];
  return { ...DEFAULT_POLICY, mode: 'selected', allowedModels: sel.allowedModels.filter((m) => policyAllows(other, m.id)), source: { type: source } };
}

/** Whether anything the team may use passes the policy (policyStatus `active`). */
export function anyCallable(policy: Policy, usable: Set<string>): boolean {
  return policy.mode === 'selected'
    ? policy.allowedModels.some((m) => usable.has(m.id))
    : [...usable].some((id) => policyAllows(policy, id));
}

export function withoutLists(policy: Policy): Policy {
  return { ...policy, allowedModels: [], excludedModels: [] };
}

/**
 * The interface's response object. `policyStatus` judges what the key may really call (its
 * policy, its member's and the team's models); `effectivePolicy` (Gantry's, only when the
 * member has a policy) is the key's policy narrowed by the member's.
 */
function view(keyId: string, policy: Policy, row: q.PolicyRow | undefined, memberPolicy: Policy | null, usable: Set<string>, withLists: boolean) {
  const effective = memberPolicy ? intersectPolicies(policy, memberPolicy, 'member_policy') : policy;
  return {
    stringId: keyId,
    policy: withLists ? policy : withoutLists(policy),
    policyStatus: anyCallable(effective, usable) ? 'active' : 'no_available_models',
    allowedModelCount: policy.allowedModels.length,
    excludedModelCount: policy.excludedModels.length,
    updatedAt: row?.updatedAtS ?? 0,
    updatedBy: row?.updatedBy ?? '',
    ...(memberPolicy ? { effectivePolicy: withLists ? effective : withoutLists(effective) } : {}),
  };
}

export async function usableIds(ctx: Ctx, teamId: string): Promise<Set<string>> {
  const team = await findTeam(ctx.db, teamId);
  return new Set((await teamUsableModels(ctx, team ?? { enabledModels: null })).map((m) => m.id));
}

/** Rule 3: every model written must be enabled for the team and available. */
export function assertModelsUsable(policy: Policy, usable: Set<string>): void {
  for (const [field, refs] of [['allowedModels', policy.allowedModels], ['excludedModels', policy.excludedModels]] as const) {
    refs.forEach((m, i) => {
      if (!usable.has(m.id)) {
        throw modelNotUsable(field, i, m.id);
      }
    });
  }
}

export async function loadPolicy(ctx: Ctx, keyId: string): Promise<{ policy: Policy; row: q.PolicyRow | undefined }> {
  const row = await q.findPolicy(ctx.db, keyId);
  return { policy: row ? (row.policy as Policy) : DEFAULT_POLICY, row };
}

/** The member's model policy, binding every key of the member; null when it has none. */
export async function loadMemberPolicy(ctx: Ctx, memberId: string): Promise<Policy | null> {
  const row = await findMemberPolicy(ctx.db, memberId);
  return row ? (row.policy as Policy) : null;
}

export async function getPolicy(ctx: Ctx, p: Principal, keyId: string) {
  const key = await requireKey(ctx, p.teamId, keyId);
  const full = can(p.role, 'writePolicy');
  // Developers read only their own keys' policies, and without the model lists.
  if (!full && !(p.role === 'Developer' && key.memberId === p.memberId)) {
    throw roleRefused(p.role, `role ${p.role} may not read this key's policy`);
  }
  const [{ policy, row }, memberPolicy, usable] = await Promise.all([loadPolicy(ctx, keyId), loadMemberPolicy(ctx, key.memberId), usableIds(ctx, p.teamId)]);
  return view(keyId, policy, row, memberPolicy, usable, full);
}

export async function setPolicy(ctx: Ctx, p: Principal, keyId: string, input: PolicyInput) {
  if (!can(p.role, 'writePolicy')) throw roleRefused(p.role, 'only a team Owner or Admin may set a key policy');
  const key = await requireKey(ctx, p.teamId, keyId);
  await assertMayActOnKey(ctx, p, key, 'set the policy of a key');
  assertNotOwnLimit(p, key.memberId, 'set the policy of its own key');
  const policy = normalizePolicy(input);
  const usable = await usableIds(ctx, p.teamId);
  assertModelsUsable(policy, usable);
  const row: q.PolicyRow = { keyId, policy, updatedAtS: Math.floor(ctx.clock.nowMs() / 1000), updatedBy: p.memberId };
  await q.upsertPolicy(ctx.db, row);
  ctx.changes.publish({ type: 'policy.changed', keyId });
  return view(keyId, policy, row, await loadMemberPolicy(ctx, key.memberId), usable, true);
}

export async function deletePolicy(ctx: Ctx, p: Principal, keyId: string): Promise<void> {
  if (!can(p.role, 'writePolicy')) throw roleRefused(p.role, 'only a team Owner or Admin may delete a key policy');
  const key = await requireKey(ctx, p.teamId, keyId);
  await assertMayActOnKey(ctx, p, key, 'delete the policy of a key');
  assertNotOwnLimit(p, key.memberId, 'delete the policy of its own key');
  await q.deletePolicy(ctx.db, keyId);
  ctx.changes.publish({ type: 'policy.changed', keyId });
}

/**
 * The key whose callable models `p` asks for, as the principal a call with it would be (its
 * team, member and role): one's own key, or any key of the team for who manages members (who
 * may list it). The models themselves are the gateway's to judge (admission.visibleModels).
 */
export async function keyAsCaller(ctx: Ctx, p: Principal, keyId: string): Promise<Principal> {
  const key = await requireKey(ctx, p.teamId, keyId);
  if (key.memberId !== p.memberId && !can(p.role, 'manageMembers')) {
    throw roleRefused(p.role, `role ${p.role} may only list the models of its own keys`);
  }
  const holder = await requireMember(ctx, p.teamId, key.memberId);
  if (!isRole(holder.role)) throw roleRefused(p.role, `the key's member has no known role (${holder.role})`);
  return { teamId: p.teamId, memberId: key.memberId, keyId, role: holder.role };
}
