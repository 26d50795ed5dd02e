import { invalid, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { Ctx } from '../context.ts';
import { ACTIVE, type MemberStatus } from './codes.ts';
import type { Tx } from '../../store/db.ts';
import * as q from '../../store/accounts.ts';
import { ROLES, assertMayActOn, isRole, type Principal, type Role } from '../roles.ts';
import { roleRefused } from '../errors.ts';
import { emailTaken, lastOwner } from './errors.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface AddMemberInput {
  email: string;
  role: string;
  phone?: string | undefined;
  remarkName?: string | undefined;
  /** the person who holds the seat (accounts); none: a member of API keys only, as before persons */
  personId?: string | undefined;
  /** `invited`: a seat an invitation holds (domain/accounts/invitations.ts) */
  status?: MemberStatus | undefined;
}

/** Named for the request field that carries it (`ownerEmail` when a team is created). */
export function validateEmail(email: string, field = 'email'): void {
  if (!EMAIL.test(email)) throw invalid(field, 'must be an e-mail address');
}

function validateMember(input: AddMemberInput): void {
  validateEmail(input.email);
  if (!isRole(input.role)) throw invalid('role', `must be one of ${ROLES.join(', ')}`);
  if ((input.phone ?? '').length > 32) throw invalid('phone', 'at most 32 characters');
  if ((input.remarkName ?? '').length > 255) throw invalid('remarkName', 'at most 255 characters');
}

export async function addMemberTx(tx: Tx, nowMs: number, teamId: string, input: AddMemberInput): Promise<string> {
  validateMember(input);
  if (await q.findMemberByEmail(tx, teamId, input.email)) {
    throw emailTaken(input.email);
  }
  const id = newId('member', nowMs);
  await q.insertMember(tx, {
    id, teamId, email: input.email, role: input.role,
    phone: input.phone ?? '', remarkName: input.remarkName ?? '', createdAt: new Date(nowMs),
    personId: input.personId ?? null, status: input.status ?? ACTIVE,
  });
  return id;
}

export async function addMember(ctx: Ctx, teamId: string, input: AddMemberInput, actor?: Principal): Promise<string> {
  validateMember(input);
  if (input.role === 'Owner' && actor && actor.role !== 'Owner') {
    throw roleRefused(actor.role, 'only an Owner may add another Owner', { rule: 'only an Owner makes an Owner' });
  }
  return ctx.db.transaction((tx) => addMemberTx(tx, ctx.clock.nowMs(), teamId, input));
}

/** A member of `teamId`; a member of another team reads as not found. */
export async function requireMember(ctx: Ctx, teamId: string, memberId: string): Promise<q.MemberRow> {
  const m = await q.findMember(ctx.db, memberId);
  if (!m || m.teamId !== teamId) throw notFound('member', memberId);
  return m;
}

export async function changeRole(ctx: Ctx, teamId: string, memberId: string, role: string, actor?: Principal): Promise<void> {
  if (!isRole(role)) throw invalid('role', `must be one of ${ROLES.join(', ')}`);
  const m = await requireMember(ctx, teamId, memberId);
  if (actor) assertMayActOn(actor, m, 'change the role');
  if (role === 'Owner' && actor && actor.role !== 'Owner') {
    throw roleRefused(actor.role, 'only an Owner may grant the Owner role', { rule: 'only an Owner makes an Owner' });
  }
  await ctx.db.transaction(async (tx) => {
    if (role !== 'Owner') await assertKeepsAnOwner(tx, teamId, memberId);
    await q.updateMember(tx, memberId, { role });
  });
  ctx.changes.publish({ type: 'member.changed', teamId, memberId }); // the member's keys carry the role
}

export async function setMemberStatus(ctx: Ctx, teamId: string, memberId: string, status: MemberStatus, actor?: Principal): Promise<void> {
  const m = await requireMember(ctx, teamId, memberId);
  if (actor) assertMayActOn(actor, m, 'change the status');
  if (actor && actor.memberId === memberId) throw invalid('memberId', 'a member cannot disable itself');
  await ctx.db.transaction(async (tx) => {
    if (status === 'disabled') await assertKeepsAnOwner(tx, teamId, memberId);
    await q.updateMember(tx, memberId, { status });
  });
  ctx.changes.publish({ type: 'member.changed', teamId, memberId });
}

/**
 * A team always keeps an active Owner: without one nobody may manage members or grant the
 * Owner role again. Taking the role from (or disabling) the last one is refused; the team row
 * is locked so two concurrent demotions cannot both pass.
 */
async function assertKeepsAnOwner(tx: Tx, teamId: string, memberId: string): Promise<void> {
  await q.lockTeam(tx, teamId);
  const all = await q.listMembers(tx, teamId);
  const target = all.find((m) => m.id === memberId);
  if (target?.role !== 'Owner' || target.status !== ACTIVE) return;
  if (all.some((m) => m.id !== memberId && m.role === 'Owner' && m.status === ACTIVE)) return;
  throw lastOwner(memberId);
}

export function memberView(m: q.MemberRow) {
  return {
    memberId: m.id,
    userId: m.teamId,
    email: m.email,
    role: m.role as Role,
    status: m.status,
    phone: m.phone,
    remarkName: m.remarkName,
    createdAt: String(Math.floor(m.createdAt.getTime() / 1000)),
  };
}

/** A member of any team (the operator's view); a missing one is NOT_FOUND. */
export async function requireAnyMember(ctx: Ctx, memberId: string): Promise<q.MemberRow> {
  const m = await q.findMember(ctx.db, memberId);
  if (!m) throw notFound('member', memberId);
  return m;
}

export async function listTeamMembers(ctx: Ctx, teamId: string) {
  return (await q.listMembers(ctx.db, teamId)).map(memberView);
}
