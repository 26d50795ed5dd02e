import { AppError, invalid, notFound } from '../../lib/errors.ts';
import { maskSecret, newApiKeySecret, newId, sha256Hex } from '../../lib/ids.ts';
import type { Ctx } from '../context.ts';
import * as q from '../../store/accounts.ts';
import type { Principal } from '../roles.ts';

export async function createKey(ctx: Ctx, memberId: string, name: string): Promise<{ keyId: string; apiKey: string }> {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 255) throw invalid('name', 'must be 1-255 characters');
  const member = await q.findMember(ctx.db, memberId);
  if (!member) throw notFound('member', memberId);
  if (member.status !== 'active') throw new AppError('INVALID_ARGUMENT', `member ${memberId} is disabled`, { memberId });
  const apiKey = newApiKeySecret();
  const now = ctx.clock.nowMs();
  const keyId = newId('key', now);
  await q.insertKey(ctx.db, {
    id: keyId, teamId: member.teamId, memberId, name: trimmed,
    secretHash: sha256Hex(apiKey), mask: maskSecret(apiKey), createdAt: new Date(now),
  });
  return { keyId, apiKey };
}

/** A key of `teamId`; a key of another team reads as not found. */
export async function requireKey(ctx: Ctx, teamId: string, keyId: string): Promise<q.ApiKeyRow> {
  const k = await q.findKey(ctx.db, keyId);
  if (!k || k.teamId !== teamId) throw notFound('key', keyId);
  return k;
}

export async function revokeKey(ctx: Ctx, keyId: string, actor?: Principal): Promise<void> {
  const k = await q.findKey(ctx.db, keyId);
  if (!k || (actor && k.teamId !== actor.teamId)) throw notFound('key', keyId);
  // Members without member management may revoke only their own keys.
  if (actor && !['Owner', 'Admin'].includes(actor.role) && k.memberId !== actor.memberId) throw notFound('key', keyId);
  if (k.status === 'revoked') return;
  await q.updateKey(ctx.db, keyId, { status: 'revoked', revokedAt: new Date(ctx.clock.nowMs()) });
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
