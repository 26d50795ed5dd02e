import { invalid, notFound } from '../../lib/errors.ts';
import { memberDisabled } from './errors.ts';
import { maskSecret, newApiKeySecret, newId, sha256Hex } from '../../lib/ids.ts';
import type { Ctx } from '../context.ts';
import { inTransaction } from '../changes.ts';
import { ACTIVE, type KeyStatus } from '../accounts/codes.ts';
import { upsertBudget } from '../../store/budgets.ts';
import { findKeyBudgetDefault } from '../../store/restrictions.ts';

const REVOKED: KeyStatus = 'revoked';
import * as q from '../../store/accounts.ts';
import { assertMayActOn, type Principal } from '../roles.ts';

export async function createKey(ctx: Ctx, memberId: string, name: string): Promise<{ keyId: string; apiKey: string }> {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 255) throw invalid('name', 'must be 1-255 characters');
  const member = await q.findMember(ctx.db, memberId);
  if (!member) throw notFound('member', memberId);
  if (member.status !== ACTIVE) throw memberDisabled(memberId);
  const apiKey = newApiKeySecret();
  const now = ctx.clock.nowMs();
  const keyId = newId('key', now);
  await inTransaction(ctx, async (tx) => {
    await q.insertKey(tx, {
      id: keyId, teamId: member.teamId, memberId, name: trimmed,
      secretHash: sha256Hex(apiKey), mask: maskSecret(apiKey), createdAt: new Date(now),
    });
    // The member's default key budget (domain/budgets/README.md): a new key never starts
    // freer than its member allows. In the key's transaction: it is never usable without it.
    const d = await findKeyBudgetDefault(tx, memberId);
    if (d) {
      await upsertBudget(tx, { scope: 'key', subjectId: keyId, teamId: member.teamId, budgetType: d.budgetType, limitUnits: d.limitUnits, cycle: d.cycle, setAt: new Date(now) });
      ctx.changes.publish({ type: 'budget.changed', scope: { kind: 'key', id: keyId } });
    }
    ctx.changes.publish({ type: 'key.changed', teamId: member.teamId, keyId });
  });
  return { keyId, apiKey };
}

/** A key of `teamId`; a key of another team reads as not found. */
export async function requireKey(ctx: Ctx, teamId: string, keyId: string): Promise<q.ApiKeyRow> {
  const k = await q.findKey(ctx.db, keyId);
  if (!k || k.teamId !== teamId) throw notFound('key', keyId);
  return k;
}

/** Refuses a change to `key` by `actor` when the key is an Owner's and the actor is not one. */
export async function assertMayActOnKey(ctx: Ctx, actor: Principal, key: q.ApiKeyRow, what: string): Promise<void> {
  if (key.memberId === actor.memberId) return; // one's own key
  const holder = await q.findMember(ctx.db, key.memberId);
  if (holder) assertMayActOn(actor, holder, what);
}

export async function revokeKey(ctx: Ctx, keyId: string, actor?: Principal): Promise<void> {
  const k = await q.findKey(ctx.db, keyId);
  if (!k || (actor && k.teamId !== actor.teamId)) throw notFound('key', keyId);
  // Members without member management may revoke only their own keys.
  if (actor && !['Owner', 'Admin'].includes(actor.role) && k.memberId !== actor.memberId) throw notFound('key', keyId);
  if (actor) await assertMayActOnKey(ctx, actor, k, 'revoke a key');
  if (k.status === REVOKED) return;
  await q.updateKey(ctx.db, keyId, { status: REVOKED, revokedAt: new Date(ctx.clock.nowMs()) });
  ctx.changes.publish({ type: 'key.changed', teamId: k.teamId, keyId }); // every replica stops accepting it
}

export function keyView(k: q.ApiKeyRow) {
  return {
    keyId: k.id,
    memberId: k.memberId,
    name: k.name,
    mask: k.mask,
    status: k.status,
    createdAt: String(Math.floor(k.createdAt.getTime() / 1000)),
  };
}

export async function listMemberKeys(ctx: Ctx, memberId: string) {
  return (await q.listKeysOfMember(ctx.db, memberId)).map(keyView);
}
