// Two-factor sign-in (TOTP, RFC 6238: any authenticator app) with recovery codes. Rules
// (docs/security.md, "People"):
// - the secret is 160 random bits, sealed at rest with the data dir's key (lib/secret-box.ts);
//   it is shown once, at enrolment, and takes effect only once a code from it is confirmed;
// - a code is accepted within one 30 s step either side of now, and once: the step accepted is
//   kept and raised by one conditional UPDATE, so a code seen over a shoulder, or sent twice at
//   once, signs in one time;
// - turning it on makes 10 recovery codes (50 random bits each), shown once, kept as SHA-256,
//   each usable once in place of a code; and signs the person's other sessions out;
// - every sign-in by password asks for the second factor once it is on: the console's sign-in
//   and accepting an invitation with an existing account (a reset link changes the password,
//   never the second factor);
// - turning it off takes the password and a code (or a recovery code).
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../lib/ids.ts';
import { verifyPassword } from '../../lib/passwords.ts';
import { base32Encode, matchTotp, newTotpSecret, otpauthUri } from '../../lib/totp.ts';
import { deletePersonSessions } from '../../store/console-sessions.ts';
import * as q from '../../store/persons.ts';
import type { Accounts } from './accounts.ts';
import { isSessionRef } from '../keys/authenticator.ts';
import { roleRefused } from '../errors.ts';
import type { Principal } from '../roles.ts';
import { secondFactorRefused, secondFactorRequired, signInRefused, twoFactorState, wrongEnrolmentCode } from './errors.ts';
import { announceEnded } from './sessions-ended.ts';

export const RECOVERY_CODES = 10;

/** What a sign-in may bring beside the password. */
export interface SecondFactor {
  totp?: string | undefined;
  recoveryCode?: string | undefined;
}

async function requirePerson(a: Accounts, personId: string): Promise<q.PersonRow> {
  const person = await q.findPerson(a.ctx.db, personId);
  if (!person) throw signInRefused();
  return person;
}

/** Begin enrolment: a new secret (shown once, here) waiting for a code from it. */
export async function startTotp(a: Accounts, personId: string): Promise<{ secret: string; otpauthUri: string }> {
  const person = await requirePerson(a, personId);
  if (person.totpEnabledAtMs !== null) throw twoFactorState('on already: turn it off first to enrol another app');
  const secret = newTotpSecret();
  await q.updatePerson(a.ctx.db, personId, { totpPendingSecret: a.secrets.seal(secret.toString('base64')) });
  return { secret: base32Encode(secret), otpauthUri: otpauthUri(secret, 'Gantry', person.email) };
}

/** Confirm enrolment with a code from the app: two-factor sign-in on, recovery codes (shown once), the other sessions signed out. */
export async function confirmTotp(a: Accounts, personId: string, code: string, keepSessionId: string): Promise<string[]> {
  const person = await requirePerson(a, personId);
  if (!person.totpPendingSecret) throw twoFactorState('no enrolment in progress: start one first');
  const now = a.ctx.clock.nowMs();
  const step = matchTotp(Buffer.from(a.secrets.open(person.totpPendingSecret), 'base64'), code.trim(), now);
  if (step === undefined) throw wrongEnrolmentCode();
  const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  const ended = await a.ctx.db.transaction(async (tx) => {
    await q.updatePerson(tx, personId, { totpSecret: person.totpPendingSecret, totpPendingSecret: null, totpEnabledAtMs: now, totpLastStep: step });
    await q.replaceRecoveryCodes(tx, personId, codes.map(recoveryHash), now);
    return deletePersonSessions(tx, personId, keepSessionId);
  });
  announceEnded(a.ctx, ended);
  return codes;
}

/** Turn two-factor sign-in off: the password and a second factor. */
export async function disableTotp(a: Accounts, personId: string, password: string, factor: SecondFactor): Promise<void> {
  const person = await requirePerson(a, personId);
  if (person.totpEnabledAtMs === null) throw twoFactorState('off already');
  if (!(await verifyPassword(person.passwordHash, password))) throw signInRefused();
  await checkSecondFactor(a, person, factor);
  await a.ctx.db.transaction(async (tx) => {
    await q.updatePerson(tx, personId, { totpSecret: null, totpPendingSecret: null, totpEnabledAtMs: null, totpLastStep: null });
    await q.replaceRecoveryCodes(tx, personId, [], a.ctx.clock.nowMs());
  });
}

/** After the password: the second factor, when the person has it on (a code once, or a recovery code once). */
export async function checkSecondFactor(a: Accounts, person: q.PersonRow, factor: SecondFactor): Promise<void> {
  if (person.totpEnabledAtMs === null || !person.totpSecret) return;
  const now = a.ctx.clock.nowMs();
  if (factor.totp !== undefined) {
    const secret = Buffer.from(a.secrets.open(person.totpSecret), 'base64');
    const step = matchTotp(secret, factor.totp.trim(), now, { afterStep: person.totpLastStep ?? -1 });
    if (step !== undefined && (await q.acceptTotpStep(a.ctx.db, person.id, step))) return;
    throw secondFactorRefused();
  }
  if (factor.recoveryCode !== undefined) {
    if (await q.useRecoveryCode(a.ctx.db, person.id, recoveryHash(factor.recoveryCode), now)) return;
    throw secondFactorRefused();
  }
  throw secondFactorRequired();
}

export async function twoFactorView(a: Accounts, person: q.PersonRow) {
  return { enabled: person.totpEnabledAtMs !== null, recoveryCodesLeft: person.totpEnabledAtMs === null ? 0 : await q.countRecoveryCodesLeft(a.ctx.db, person.id) };
}

/** `xxxxx-xxxxx`: 10 base32 characters, 50 random bits. */
function newRecoveryCode(): string {
  const s = base32Encode(randomBytes(7)).slice(0, 10).toLowerCase();
  return `${s.slice(0, 5)}-${s.slice(5)}`;
}

/** A recovery code as kept: its SHA-256 after case and dashes are dropped (typed as shown, or not). */
function recoveryHash(code: string): string {
  return sha256Hex(code.replace(/[\s-]/g, '').toLowerCase());
}

/**
 * An Owner's rule for the team: persons act in it only with two-factor sign-in on (their
 * sessions answer 403 until they turn it on; API keys are machines' and unaffected). An Owner
 * signed in as a person turns it on only with two-factor on themselves.
 */
export async function setTeamTwoFactor(a: Accounts, p: Principal, required: boolean): Promise<void> {
  if (p.role !== 'Owner') throw roleRefused(p.role, 'only an Owner sets whether the team requires two-factor sign-in', { rule: 'Owner only' });
  if (required && isSessionRef(p.keyId)) {
    const person = await q.findPersonOfSession(a.ctx.db, p.keyId);
    if (person?.totpEnabledAtMs === null) throw twoFactorState('off for your own account: turn it on before requiring it of the team');
  }
  await q.setTeamRequiresTwoFactor(a.ctx.db, p.teamId, required);
  a.ctx.changes.publish({ type: 'team.changed', teamId: p.teamId });
}
