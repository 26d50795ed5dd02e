// Invitations: an Owner or Admin invites an address with a role (never Owner: an Owner is made
// from an active member, by an Owner). The invitation holds a seat (a member in status
// `invited`, which cannot act) and sends an invite link; following it with a password signs in
// to the address's account, or makes one (the link proves the address) unless sign-up is
// closed, and the seat becomes that person's, active. Revoked, expired or used: the link does
// nothing. A revoked invitation's seat is removed.
import { notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import * as q from '../../store/persons.ts';
import * as members from '../../store/accounts.ts';
import { assertMayActOn, isRole, type Principal } from '../roles.ts';
import type { Tx } from '../../store/db.ts';
import type { Accounts } from './accounts.ts';
import { alreadyMember, emailTaken, inviteRole, linkRefused, signInRefused, signupClosed } from './errors.ts';
import { createLinkTx, LINK_TTL_MS, peekLink, useLinkTx } from './links.ts';
import { addMemberTx } from './members.ts';
import { checkPassword, insertPersonTx, normalizeEmail, type SignedIn } from './persons.ts';
import { checkSecondFactor, type SecondFactor } from './two-factor.ts';

export interface InviteInput {
  email: string;
  /** the new seat's role; none when the address is a member's without an account (the invitation links that seat, its role unchanged) */
  role?: string | undefined;
}

/**
 * Invite an address: a new seat (`invited`) with the role, or, when the address is a
 * member's that has no account yet (made by the operator or an Owner before accounts), a link
 * that lets its owner take that seat as it is (an Owner's seat only by an Owner).
 */
export async function createInvitation(a: Accounts, p: Principal, input: InviteInput): Promise<ReturnType<typeof invitationView>> {
  const email = normalizeEmail(input.email);
  const now = a.ctx.clock.nowMs();
  const row = await a.ctx.db.transaction(async (tx) => {
    await members.lockTeam(tx, p.teamId); // one seat per address, even from two invitations at once
    const seat = await seatFor(tx, p, email, input.role, now);
    const inv: q.InvitationRow = {
      id: newId('invitation', now), teamId: p.teamId, memberId: seat.id, email, role: seat.role, invitedBy: p.memberId,
      status: 'pending', createdAtMs: now, expiresAtMs: now + LINK_TTL_MS.invite, endedAtMs: null,
    };
    await q.insertInvitation(tx, inv);
    await createLinkTx(a, tx, { purpose: 'invite', email, invitationId: inv.id });
    return inv;
  });
  return invitationView(row, now);
}

/** The seat an invitation fills: a new one, or a member of the address without an account. */
async function seatFor(tx: Tx, p: Principal, email: string, role: string | undefined, now: number): Promise<{ id: string; role: string }> {
  const existing = await q.findMemberByAddress(tx, p.teamId, email);
  if (existing) {
    if (existing.personId || existing.status === 'invited' || (role !== undefined && role !== existing.role)) throw emailTaken(email);
    assertMayActOn(p, existing, 'send the invitation to the seat');
    return { id: existing.id, role: existing.role };
  }
  if (role === undefined || !isRole(role) || role === 'Owner') throw inviteRole(String(role));
  return { id: await addMemberTx(tx, now, p.teamId, { email, role, status: 'invited' }), role };
}

export function invitationView(i: q.InvitationRow, nowMs: number) {
  const status = i.status === 'pending' && i.expiresAtMs <= nowMs ? 'expired' : i.status;
  return {
    invitationId: i.id, teamId: i.teamId, memberId: i.memberId, email: i.email, role: i.role, invitedBy: i.invitedBy, status,
    createdAt: new Date(i.createdAtMs).toISOString(), expiresAt: new Date(i.expiresAtMs).toISOString(),
  };
}

export async function listInvitations(a: Accounts, p: Principal) {
  const now = a.ctx.clock.nowMs();
  return (await q.listInvitations(a.ctx.db, p.teamId)).map((i) => invitationView(i, now));
}

/** Revoke a pending (or expired) invitation of the caller's team: its link does nothing from now on, its seat is removed. */
export async function revokeInvitation(a: Accounts, p: Principal, invitationId: string): Promise<void> {
  const memberId = await a.ctx.db.transaction(async (tx) => {
    const inv = await q.lockInvitation(tx, invitationId);
    if (!inv || inv.teamId !== p.teamId || inv.status !== 'pending') throw notFound('invitation', invitationId);
    await q.updateInvitation(tx, inv.id, { status: 'revoked', endedAtMs: a.ctx.clock.nowMs() });
    const seat = await members.findMember(tx, inv.memberId);
    if (seat?.status === 'invited') await q.deleteMember(tx, seat.id);
    return inv.memberId;
  });
  a.ctx.changes.publish({ type: 'member.changed', teamId: p.teamId, memberId });
}

/**
 * Send a pending (or expired) invitation again: a new link, good for the invitation's full
 * lifetime from now; every link sent for it before stops working (single use, and only the
 * newest link of an invitation works). An Admin re-sends no invitation to an Owner's seat.
 */
export async function resendInvitation(a: Accounts, p: Principal, invitationId: string): Promise<ReturnType<typeof invitationView>> {
  const now = a.ctx.clock.nowMs();
  const row = await a.ctx.db.transaction(async (tx) => {
    const inv = await q.lockInvitation(tx, invitationId);
    if (!inv || inv.teamId !== p.teamId || inv.status !== 'pending') throw notFound('invitation', invitationId);
    assertMayActOn(p, { id: inv.memberId, role: inv.role }, 'send the invitation to the seat');
    await q.expireInvitationLinks(tx, inv.id, now);
    const next = { ...inv, expiresAtMs: now + LINK_TTL_MS.invite };
    await q.updateInvitation(tx, inv.id, { expiresAtMs: next.expiresAtMs });
    await createLinkTx(a, tx, { purpose: 'invite', email: inv.email, invitationId: inv.id });
    return next;
  });
  return invitationView(row, now);
}

/**
 * The password a link to `email` is followed with (an invitation, an operator's link): the
 * account's own, checked with its second factor (it signs in as it always does), or, when the
 * address has none and `mayCreate` does not refuse, a new account's, hashed.
 */
export async function linkPassword(a: Accounts, email: string, password: string, factor: SecondFactor, mayCreate: () => void): Promise<{ existing?: q.PersonRow | undefined; newHash?: string | undefined }> {
  const existing = await q.findPersonByEmail(a.ctx.db, email);
  if (existing) {
    if (!(await verifyPassword(existing.passwordHash, password))) throw signInRefused();
    await checkSecondFactor(a, existing, factor);
    return { existing };
  }
  mayCreate();
  checkPassword(password);
  return { newHash: await hashPassword(password, a.scrypt) };
}

/**
 * Follow an invite link with a password: the address's account (its password checked), or a
 * new one with this password (unless GANTRY_SIGNUP=closed); the seat becomes the person's.
 */
export async function acceptInvitation(a: Accounts, token: string, password: string, factor: SecondFactor = {}): Promise<SignedIn> {
  const link = await peekLink(a, token, 'invite');
  const { existing, newHash } = await linkPassword(a, link.email, password, factor, () => {
    if (a.signup === 'closed') throw signupClosed(a.signup);
  });
  const signedIn = await a.ctx.db.transaction(async (tx) => {
    const used = await useLinkTx(a, tx, token, 'invite');
    const inv = used.invitationId ? await q.lockInvitation(tx, used.invitationId) : undefined;
    if (inv?.status !== 'pending' || inv.expiresAtMs <= a.ctx.clock.nowMs()) throw linkRefused('invite');
    const seat = await members.findMember(tx, inv.memberId);
    if (!seat || seat.personId !== null) throw linkRefused('invite'); // the seat was removed, or taken, since
    const personId = existing?.id ?? await insertPersonTx(a, tx, used.email, newHash!, 'invite');
    if (existing && await q.findSeat(tx, personId, inv.teamId)) throw alreadyMember(inv.teamId);
    // a new seat becomes active; a member's seat taken by its owner keeps its status (a disabled one stays so)
    await members.updateMember(tx, inv.memberId, { personId, email: used.email, ...(seat.status === 'invited' ? { status: 'active' } : {}) });
    await q.updateInvitation(tx, inv.id, { status: 'accepted', endedAtMs: a.ctx.clock.nowMs() });
    return { personId, teamId: inv.teamId, memberId: inv.memberId };
  });
  a.ctx.changes.publish({ type: 'member.changed', teamId: signedIn.teamId, memberId: signedIn.memberId });
  return { personId: signedIn.personId, teamId: signedIn.teamId };
}
