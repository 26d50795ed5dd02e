// Operator accounts: operators are people too. The operator (with the operator token, which
// stays the CLI's and automation's) or an operator person invites an address; the link sent to
// it is followed with the address's password (its account signed in, second factor included)
// or a new one (the link proves the address, whatever GANTRY_SIGNUP says: the operator chose
// it), and the person holds an active grant. Rules (docs/security.md, "Operator accounts"):
// - a person session reaches the operator routes only while its person holds an active grant
//   AND has two-factor sign-in on, both read at every call (no cache): a revoked grant or
//   two-factor turned off closes the operator views at the next call;
// - accepting a grant is a privilege change: every session the person had ends and the route
//   opens a new one; revoking it ends every session of the person at once (announced as any
//   ended session is, sessions-ended.ts);
// - what an operator person does is logged under their person id (the request log's
//   `operator` field), the token's under `token`.
import { notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import { deletePersonSessions } from '../../store/console-sessions.ts';
import * as q from '../../store/persons.ts';
import * as ops from '../../store/operators.ts';
import type { Ctx } from '../context.ts';
import type { Accounts } from './accounts.ts';
import { ACTIVE } from './codes.ts';
import { linkRefused, notOperator, operatorAlready, operatorTwoFactorRequired } from './errors.ts';
import { linkPassword } from './invitations.ts';
import { createLinkTx, peekLink, useLinkTx } from './links.ts';
import { insertPersonTx, normalizeEmail } from './persons.ts';
import { announceEnded } from './sessions-ended.ts';
import type { SecondFactor } from './two-factor.ts';

/** Who acts on an operator route: the operator token, or an operator person (what the request log names). */
export type OperatorActor = { via: 'token' } | { via: 'person'; personId: string; email: string };

export const TOKEN_ACTOR: OperatorActor = { via: 'token' };

/** The actor as grants and logs record it. */
export function actorName(actor: OperatorActor): string {
  return actor.via === 'token' ? 'operator-token' : actor.personId;
}

function grantView(g: ops.OperatorGrantRow, personEmail?: string | null, twoFactor?: boolean | null) {
  return {
    grantId: g.id, email: personEmail ?? g.email, personId: g.personId ?? undefined, status: g.status, grantedBy: g.grantedBy,
    twoFactor: twoFactor === true, createdAt: new Date(g.createdAtMs).toISOString(),
    ...(g.acceptedAtMs !== null ? { acceptedAt: new Date(g.acceptedAtMs).toISOString() } : {}),
  };
}

/**
 * Invite an address to be an operator: a grant `invited` and a link (24 h) by the accounts.mail
 * job. Inviting an address already invited sends a new link (the one before stops working).
 */
export async function inviteOperator(a: Accounts, rawEmail: string, by: OperatorActor) {
  const email = normalizeEmail(rawEmail);
  const now = a.ctx.clock.nowMs();
  const grant = await a.ctx.db.transaction(async (tx) => {
    const person = await q.findPersonByEmail(tx, email);
    if (person && (await ops.findActiveGrant(tx, person.id))) throw operatorAlready(email);
    let row = await ops.lockInvitedGrant(tx, email);
    if (row) await q.expireLinks(tx, email, 'operator', now);
    else {
      row = { id: newId('operatorGrant', now), email, personId: null, status: 'invited', grantedBy: actorName(by), createdAtMs: now, acceptedAtMs: null, revokedAtMs: null };
      await ops.insertGrant(tx, row);
    }
    await createLinkTx(a, tx, { purpose: 'operator', email });
    return row;
  });
  return grantView(grant);
}

export async function listOperators(a: Accounts) {
  return (await ops.listLiveGrants(a.ctx.db)).map((r) => grantView(r.grant, r.personEmail, r.twoFactor));
}

/** Revoke a grant (invited or active): its link is refused from now on, and every session of its person ends at once. */
export async function revokeOperator(a: Accounts, grantId: string): Promise<void> {
  const now = a.ctx.clock.nowMs();
  const ended = await a.ctx.db.transaction(async (tx) => {
    const g = await ops.lockGrant(tx, grantId);
    if (!g || g.status === 'revoked') throw notFound('operator grant', grantId);
    await ops.updateGrant(tx, g.id, { status: 'revoked', revokedAtMs: now });
    if (g.status === 'invited') await q.expireLinks(tx, g.email, 'operator', now);
    return g.personId ? deletePersonSessions(tx, g.personId) : [];
  });
  announceEnded(a.ctx, ended);
}

/**
 * Follow an operator link with a password (and the second factor, when the address's account
 * has it on): the grant becomes the person's. The person's other sessions end (a privilege
 * change); the caller opens the new one. The team it acts in first: the person's first active
 * seat, or none.
 */
export async function acceptOperatorInvitation(a: Accounts, token: string, password: string, factor: SecondFactor = {}): Promise<{ personId: string; teamId: string | null }> {
  const link = await peekLink(a, token, 'operator');
  const { existing, newHash } = await linkPassword(a, link.email, password, factor, () => {}); // GANTRY_SIGNUP does not apply: the operator chose the address
  const { personId, ended } = await a.ctx.db.transaction(async (tx) => {
    const used = await useLinkTx(a, tx, token, 'operator');
    const grant = await ops.lockInvitedGrant(tx, used.email);
    if (!grant) throw linkRefused('operator'); // revoked since it was sent
    const id = existing?.id ?? await insertPersonTx(a, tx, used.email, newHash!, 'operator');
    if (await ops.findActiveGrant(tx, id)) throw operatorAlready(used.email);
    await ops.updateGrant(tx, grant.id, { status: 'active', personId: id, acceptedAtMs: a.ctx.clock.nowMs() });
    return { personId: id, ended: await deletePersonSessions(tx, id) };
  });
  announceEnded(a.ctx, ended);
  const seat = (await q.listSeats(a.ctx.db, personId)).find((s) => s.status === ACTIVE);
  return { personId, teamId: seat?.teamId ?? null };
}

/** Who a person session acts as on an operator route, now: refused unless its person holds an active grant and has two-factor sign-in on. */
export async function operatorOfPerson(ctx: Ctx, personId: string): Promise<OperatorActor> {
  const g = await ops.findActiveGrant(ctx.db, personId);
  if (!g) throw notOperator();
  if (!g.twoFactor) throw operatorTwoFactorRequired();
  return { via: 'person', personId, email: g.email };
}

/** What a person's console session says of their operator account: present while the grant is active; `twoFactorRequired` while the views stay closed. */
export async function operatorStatus(ctx: Ctx, personId: string): Promise<{ grantId: string; twoFactorRequired: boolean } | undefined> {
  const g = await ops.findActiveGrant(ctx.db, personId);
  return g ? { grantId: g.grantId, twoFactorRequired: !g.twoFactor } : undefined;
}
