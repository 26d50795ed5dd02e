// Persons: someone who signs in with an e-mail address and a password, and holds seats
// (members) in teams. What must hold (docs/security.md, "Accounts"):
// - passwords are hashed with scrypt (lib/passwords.ts) and never stored or logged otherwise;
// - sign-in, sign-up and a reset request answer the same whether or not the address has an
//   account: a sign-in for an unknown address verifies against a dummy hash (the same work),
//   and sign-up and reset requests do the same writes either way (a link row and its mail job;
//   the job decides what, if anything, to send: links.ts composeLinkMail);
// - an account is made only when its address is proven: by the confirm link (with the
//   password chosen at sign-up, asked again, so a stranger who signed up with your address
//   cannot have you confirm an account whose password they know) or by an invite link;
// - a new person from a sign-up gets a team of their own, tier T1, as its Owner.
import { dummyPasswordHash, hashPassword, MAX_PASSWORD_LENGTH, needsRehash, verifyPassword } from '../../lib/passwords.ts';
import { newId } from '../../lib/ids.ts';
import { invalid } from '../../lib/errors.ts';
import type { Tx } from '../../store/db.ts';
import * as q from '../../store/persons.ts';
import { deletePersonSessions } from '../../store/console-sessions.ts';
import { announceEnded } from './sessions-ended.ts';
import { checkSecondFactor, twoFactorView, type SecondFactor } from './two-factor.ts';
import type { Accounts } from './accounts.ts';
import { ACTIVE } from './codes.ts';
import { emailTaken, linkRefused, signInRefused, signupClosed, weakPassword } from './errors.ts';
import { findMemberByEmail, updateMember } from '../../store/accounts.ts';
import { findActiveGrant } from '../../store/operators.ts';
import { createLinkTx, peekLink, useLinkTx } from './links.ts';
import { validateEmail } from './members.ts';
import { createTeamTx } from './teams.ts';
import { noticeEmailChangedTx } from './notices.ts';

export const MIN_PASSWORD_LENGTH = 8;

/** Who signed in: the person, and the team their session acts in first (null: an operator account holding no seat, operators.ts). */
export interface SignedIn {
  personId: string;
  teamId: string | null;
}

/** An address as persons are keyed by it: trimmed, NFC, lower case (the whole address: docs/compat-decisions.md). */
export function normalizeEmail(raw: string, field = 'email'): string {
  const email = raw.trim().normalize('NFC').toLowerCase();
  if (email.length > 254) throw invalid(field, 'at most 254 characters');
  validateEmail(email, field);
  return email;
}

export function checkPassword(password: string, field = 'password'): void {
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) throw weakPassword(field, MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH);
}

/**
 * E-mail and password for the person and the first team they may act in. One refusal for an
 * unknown address, a wrong password and a person without an active seat; an unknown address
 * costs the same scrypt as a known one.
 */
export async function signIn(a: Accounts, rawEmail: string, password: string, factor: SecondFactor = {}): Promise<SignedIn> {
  const email = normalizeEmail(rawEmail);
  const person = await q.findPersonByEmail(a.ctx.db, email);
  const ok = await verifyPassword(person?.passwordHash ?? await dummyPasswordHash(a.scrypt), password);
  if (!person || !ok) throw signInRefused();
  await checkSecondFactor(a, person, factor);
  const seats = (await q.listSeats(a.ctx.db, person.id)).filter((s) => s.status === ACTIVE);
  // first a team the person may act in now; else one that asks for two-factor (signed in to turn it on)
  const seat = seats.find((s) => !s.teamRequiresTwoFactor || person.totpEnabledAtMs !== null) ?? seats[0];
  // without a seat, only an operator account signs in (to the operator views)
  if (!seat && !(await findActiveGrant(a.ctx.db, person.id))) throw signInRefused();
  if (needsRehash(person.passwordHash, a.scrypt)) await q.updatePerson(a.ctx.db, person.id, { passwordHash: await hashPassword(password, a.scrypt) });
  return { personId: person.id, teamId: seat?.teamId ?? null };
}

/**
 * A sign-up (GANTRY_SIGNUP=open): a confirm link to the address, carrying the password's
 * hash; the account is made when it is followed. The same work and answer whether or not the
 * address has an account (the mail job tells the owner of one that it exists).
 */
export async function requestSignup(a: Accounts, rawEmail: string, password: string): Promise<void> {
  if (a.signup !== 'open') throw signupClosed(a.signup);
  const email = normalizeEmail(rawEmail);
  checkPassword(password);
  const passwordHash = await hashPassword(password, a.scrypt);
  await a.ctx.db.transaction((tx) => createLinkTx(a, tx, { purpose: 'confirm', email, passwordHash }).then(() => undefined));
}

/** Follow a confirm link with the password chosen at sign-up: the person, verified, and a team of their own (T1, Owner). */
export async function confirmSignup(a: Accounts, token: string, password: string): Promise<SignedIn> {
  const link = await peekLink(a, token, 'confirm');
  if (!link.passwordHash || !(await verifyPassword(link.passwordHash, password))) throw signInRefused();
  return a.ctx.db.transaction(async (tx) => {
    await useLinkTx(a, tx, token, 'confirm');
    if (await q.findPersonByEmail(tx, link.email)) throw linkRefused('confirm'); // confirmed from another link already
    const personId = await insertPersonTx(a, tx, link.email, link.passwordHash!, 'confirm');
    const { userId } = await createTeamTx(tx, a.ctx.clock.nowMs(), { name: link.email, ownerEmail: link.email, tier: 'T1' }, personId);
    return { personId, teamId: userId };
  });
}

/** A person whose address a link proved. */
export async function insertPersonTx(a: Accounts, tx: Tx, email: string, passwordHash: string, purpose: 'confirm' | 'invite' | 'operator'): Promise<string> {
  const now = a.ctx.clock.nowMs();
  const id = newId('person', now);
  try {
    await q.insertPerson(tx, { id, email, passwordHash, emailVerifiedAtMs: now, createdAtMs: now });
  } catch (err) {
    // another link to this address made its account at the same moment: this one is spent (the transaction rolls back)
    if (q.isPersonEmailTaken(err)) throw linkRefused(purpose);
    throw err;
  }
  return id;
}

/** A reset link to the address if it has an account; the same work and answer if not (the mail job sends nothing then). */
export async function requestReset(a: Accounts, rawEmail: string): Promise<void> {
  const email = normalizeEmail(rawEmail);
  await a.ctx.db.transaction((tx) => createLinkTx(a, tx, { purpose: 'reset', email }).then(() => undefined));
}

/** Follow a reset link: the new password, every session of the person signed out, the other reset links void. */
export async function resetPassword(a: Accounts, token: string, password: string): Promise<void> {
  checkPassword(password);
  await peekLink(a, token, 'reset');
  const passwordHash = await hashPassword(password, a.scrypt);
  const ended = await a.ctx.db.transaction(async (tx) => {
    const link = await useLinkTx(a, tx, token, 'reset');
    const person = await q.findPersonByEmail(tx, link.email);
    if (!person) throw linkRefused('reset');
    await q.updatePerson(tx, person.id, { passwordHash, emailVerifiedAtMs: person.emailVerifiedAtMs ?? a.ctx.clock.nowMs() });
    await q.expireLinks(tx, link.email, 'reset', a.ctx.clock.nowMs());
    return deletePersonSessions(tx, person.id);
  });
  announceEnded(a.ctx, ended);
}

/** Change a password knowing the current one; every other session of the person is signed out (`keepSessionId`: the hash of the one asking). */
export async function changePassword(a: Accounts, personId: string, current: string, next: string, keepSessionId: string): Promise<void> {
  checkPassword(next, 'newPassword');
  const person = await q.findPerson(a.ctx.db, personId);
  if (!person || !(await verifyPassword(person.passwordHash, current))) throw signInRefused();
  const passwordHash = await hashPassword(next, a.scrypt);
  const ended = await a.ctx.db.transaction(async (tx) => {
    await q.updatePerson(tx, personId, { passwordHash });
    return deletePersonSessions(tx, personId, keepSessionId);
  });
  announceEnded(a.ctx, ended);
}


/** The person and their seats (what the console's session shows, and its team switcher). */
export async function describePerson(a: Accounts, personId: string) {
  const person = await q.findPerson(a.ctx.db, personId);
  if (!person) throw signInRefused();
  const seats = await q.listSeats(a.ctx.db, personId);
  return {
    personId, email: person.email, emailVerified: person.emailVerifiedAtMs !== null, twoFactor: await twoFactorView(a, person),
    teams: seats.map((s) => ({ teamId: s.teamId, name: s.teamName, memberId: s.memberId, role: s.role, status: s.status, requiresTwoFactor: s.teamRequiresTwoFactor })),
  };
}

/**
 * Ask to change the address (the password again): a link to the new address, which changes it
 * when followed. The same answer whether or not the new address has an account (its owner is
 * told so instead).
 */
export async function requestEmailChange(a: Accounts, personId: string, password: string, rawEmail: string): Promise<void> {
  const email = normalizeEmail(rawEmail, 'newEmail');
  const person = await q.findPerson(a.ctx.db, personId);
  if (!person || !(await verifyPassword(person.passwordHash, password))) throw signInRefused();
  if (email === person.email) throw invalid('newEmail', 'is the address the account has');
  await a.ctx.db.transaction((tx) => createLinkTx(a, tx, { purpose: 'email', email, personId }).then(() => undefined));
}

/** Follow the link sent to the new address: the account's address, and its members' in every team, become it; the old address gets a notice (no link). */
export async function confirmEmailChange(a: Accounts, token: string): Promise<void> {
  const teams = await a.ctx.db.transaction(async (tx) => {
    const link = await useLinkTx(a, tx, token, 'email');
    const person = link.personId ? await q.findPerson(tx, link.personId) : undefined;
    if (!person || await q.findPersonByEmail(tx, link.email)) throw linkRefused('email'); // taken since the request
    const seats = await q.listSeats(tx, person.id);
    for (const seat of seats) {
      if (await findMemberByEmail(tx, seat.teamId, link.email)) throw emailTaken(link.email); // a member of that address, without an account, in one of the teams
    }
    await q.updatePerson(tx, person.id, { email: link.email, emailVerifiedAtMs: a.ctx.clock.nowMs() });
    for (const seat of seats) await updateMember(tx, seat.memberId, { email: link.email });
    await noticeEmailChangedTx(a, tx, person.email, link.email); // the old address is told, without a link
    return seats.map((s) => ({ teamId: s.teamId, memberId: s.memberId }));
  });
  for (const t of teams) a.ctx.changes.publish({ type: 'member.changed', ...t });
}
