// Members' SSH public keys: registered by the member who will use them, listed with their
// fingerprints, removed by their member (or an Owner/Admin, never the Owner's by an Admin).
// A key belongs to a member: what it may reach follows that member's role and status and the
// team's state, read at each SSH authentication (src/gateway/ssh), never stored with the key.
import { invalid, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Ctx } from '../context.ts';
import { ACTIVE } from '../accounts/codes.ts';
import { findMember, findTeam } from '../../store/accounts.ts';
import * as q from '../../store/ssh-keys.ts';
import { assertMayActOn, can, isRole, type Principal } from '../roles.ts';
import { accountSuspended, keyRefused, memberDisabled, othersSshKeysRefused, sshKeyTaken } from './errors.ts';
import { parseSshPublicKey } from './ssh-public-key.ts';

/** A member's keys are few; a cap keeps one member from filling the table. */
export const SSH_KEYS_PER_MEMBER = 50;

export function sshKeyView(k: q.SshKeyRow) {
  return {
    sshKeyId: k.id,
    memberId: k.memberId,
    name: k.name,
    keyType: k.keyType,
    fingerprint: k.fingerprint,
    publicKey: `${k.keyType} ${k.publicKey}`,
    createdAt: String(Math.floor(k.createdAt.getTime() / 1000)),
  };
}
export type SshKeyView = ReturnType<typeof sshKeyView>;

/** Registers `publicKey` for the caller; the name defaults to the key's comment. */
export async function addSshKey(ctx: Ctx, actor: Principal, input: { publicKey: string; name?: string }): Promise<SshKeyView> {
  const key = parseSshPublicKey(input.publicKey);
  const name = (input.name ?? key.comment).trim() || key.fingerprint;
  if (name.length > 255) throw invalid('name', 'must be at most 255 characters');
  const member = await findMember(ctx.db, actor.memberId);
  if (!member) throw notFound('member', actor.memberId);
  if (member.status !== ACTIVE) throw memberDisabled(actor.memberId);
  if ((await q.listSshKeysOfMember(ctx.db, actor.memberId)).length >= SSH_KEYS_PER_MEMBER) {
    throw invalid('publicKey', `a member may register at most ${SSH_KEYS_PER_MEMBER} SSH keys`);
  }
  const now = ctx.clock.nowMs();
  const row: q.SshKeyRow = {
    id: newId('sshKey', now), teamId: actor.teamId, memberId: actor.memberId, name,
    keyType: key.keyType, publicKey: key.blob, fingerprint: key.fingerprint, createdAt: new Date(now),
  };
  if (!(await q.insertSshKey(ctx.db, row))) {
    throw sshKeyTaken(key.fingerprint);
  }
  ctx.changes.publish({ type: 'sshkey.changed', teamId: actor.teamId, memberId: actor.memberId, sshKeyId: row.id });
  return sshKeyView(row);
}

/** The SSH keys of `memberId` (default: the caller); another member's only to member managers. */
export async function listSshKeys(ctx: Ctx, actor: Principal, memberId: string): Promise<SshKeyView[]> {
  const m = await findMember(ctx.db, memberId);
  if (!m || m.teamId !== actor.teamId) throw notFound('member', memberId);
  if (memberId !== actor.memberId && !can(actor.role, 'manageMembers')) {
    throw othersSshKeysRefused(actor.role);
  }
  return (await q.listSshKeysOfMember(ctx.db, memberId)).map(sshKeyView);
}

/** Removes a key: its member's, or any of the team's for Owner/Admin (an Owner's only for the Owner). */
export async function removeSshKey(ctx: Ctx, actor: Principal, sshKeyId: string): Promise<void> {
  const k = await q.findSshKey(ctx.db, sshKeyId);
  // another team's key, or another member's for one who may not manage members: as if absent
  if (!k || k.teamId !== actor.teamId) throw notFound('sshKey', sshKeyId);
  if (k.memberId !== actor.memberId) {
    if (!can(actor.role, 'manageMembers')) throw notFound('sshKey', sshKeyId);
    const holder = await findMember(ctx.db, k.memberId);
    if (holder) assertMayActOn(actor, holder, 'remove an SSH key');
  }
  await q.deleteSshKey(ctx.db, sshKeyId);
  // the SSH endpoint closes the sessions this key opened (live-sessions)
  ctx.changes.publish({ type: 'sshkey.changed', teamId: k.teamId, memberId: k.memberId, sshKeyId });
}

/**
 * Who an SSH key of `teamId` stands for now (the SSH endpoint's authentication, and each
 * recheck of its live sessions): the key's member, active, of an active team, as a principal
 * whose `keyId` is the SSH key's id. Throws UNAUTHORIZED for a key the team does not have (or
 * no longer has) and for a disabled member, as an API key of theirs would be; FORBIDDEN for a
 * suspended team. The role is the caller's to judge (gateway/ssh: `changeCompute`).
 */
export async function sshKeyHolder(ctx: Ctx, teamId: string, key: { fingerprint: string } | { sshKeyId: string }): Promise<Principal> {
  const k = 'fingerprint' in key ? await q.findTeamSshKeyByFingerprint(ctx.db, teamId, key.fingerprint) : await q.findSshKey(ctx.db, key.sshKeyId);
  if (!k || k.teamId !== teamId) throw keyRefused('the SSH key is not registered (or no longer) in this team');
  const [member, team] = await Promise.all([findMember(ctx.db, k.memberId), findTeam(ctx.db, teamId)]);
  if (!member || member.status !== ACTIVE || !isRole(member.role)) throw keyRefused('the SSH key\'s member is disabled');
  if (!team || team.status !== ACTIVE) throw accountSuspended(teamId);
  return { teamId, memberId: member.id, keyId: k.id, role: member.role };
}
