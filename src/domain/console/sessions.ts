// Console sessions: signing in exchanges an API key (or the operator token) for a random
// secret the browser keeps in an HttpOnly, SameSite=Strict cookie; a person signs in with an
// e-mail address and a password for the same kind of cookie (SameSite=Lax: a link in an
// e-mail opens the console signed in), which acts as the person's member in the session's
// current team, looked up at every call: a disabled member or a suspended team ends what it
// may do at once. A person session is made anew (a new secret, the old one ended) at sign-in
// and at every change of what it may do (switching teams, a password change); its person
// lists their sessions and ends any of them. Only the secret's hash is
// stored; the key itself is never stored nor sent back. Every call made with the cookie is
// authenticated as the key (or token) it was opened with, at the time of the call: a revoked
// key, a disabled member, a suspended team or a rotated operator token ends what the session
// may do as it ends what the key may do. Every change made through a session carries its CSRF
// token. Signing out deletes the session: the cookie is worthless at once, on every replica.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { csrfRefused, oneCredential, sessionRefused } from './errors.ts';
import { newId, sha256Hex } from '../../lib/ids.ts';
import * as q from '../../store/console-sessions.ts';
import type { Ctx } from '../context.ts';
import type { KeyAuthenticator } from '../keys/authenticator.ts';
import { parseAuthorization } from '../keys/authenticator.ts';
import type { OperatorTokenVerifier } from '../operator-token.ts';
import { isRole, type Principal } from '../roles.ts';
import type { Config } from '../../config.ts';
import type { Accounts } from '../accounts/accounts.ts';
import { describePerson, type SignedIn } from '../accounts/persons.ts';
import { announceEnded } from '../accounts/sessions-ended.ts';
import { ACTIVE } from '../accounts/codes.ts';
import { isTeamTwoFactorRefusal, noSeat, noTeam, personSessionRequired, teamRequiresTwoFactor } from '../accounts/errors.ts';
import { operatorOfPerson, operatorStatus, TOKEN_ACTOR, type OperatorActor } from '../accounts/operators.ts';
import * as persons from '../../store/persons.ts';
import { accountSuspended } from '../keys/errors.ts';
import { notFound } from '../../lib/errors.ts';

export const SESSION_COOKIE = 'gantry_session';
export const CSRF_HEADER = 'x-csrf-token';

export type SessionKind = 'key' | 'operator' | 'person';

/** The console area's context: the store, the key and operator-token checks a session acts through, and persons' accounts. */
export interface Sessions {
  ctx: Ctx;
  keys: KeyAuthenticator;
  operatorToken: OperatorTokenVerifier;
  accounts: Accounts;
  ttlMs: number;
}

/** The console sessions' context from the graph (the console area's entry of src/areas.ts): a session stands for a key, the operator token or a person. */
export function sessionsContext(s: { ctx: Ctx; keys: KeyAuthenticator; operatorToken: OperatorTokenVerifier; accounts: Accounts; config: Config }): Sessions {
  return { ctx: s.ctx, keys: s.keys, operatorToken: s.operatorToken, accounts: s.accounts, ttlMs: s.config.console.sessionTtlMs };
}

export interface OpenedSession {
  /** the cookie's value (never stored) */
  secret: string;
  view: SessionView;
}

export interface SessionView {
  kind: SessionKind;
  csrfToken: string;
  expiresAtMs: number;
  /** key and person sessions: who it acts as */
  principal?: Principal;
  /** person sessions: the person and their teams */
  person?: Awaited<ReturnType<typeof describePerson>>;
  /** person sessions of an operator account (operators.ts) */
  operator?: { grantId: string; twoFactorRequired: boolean };
}

/** Sign in with exactly one of an API key or the operator token. */
export async function openSession(d: Sessions, creds: { apiKey?: string | undefined; operatorToken?: string | undefined }): Promise<OpenedSession> {
  const { apiKey, operatorToken } = creds;
  if ((apiKey === undefined) === (operatorToken === undefined)) {
    throw oneCredential();
  }
  const now = d.ctx.clock.nowMs();
  const secret = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(24).toString('base64url');
  const expiresAtMs = now + d.ttlMs;
  let view: SessionView;
  let row: q.ConsoleSessionRow;
  const base = { id: sha256Hex(secret), csrfToken, createdAtMs: now, expiresAtMs, ref: newId('consoleSession', now), personId: null, teamId: null, userAgent: null };
  if (apiKey !== undefined) {
    const hash = sha256Hex(parseAuthorization(apiKey));
    const principal = await d.keys.authenticateHash(hash); // refuses a revoked key, a disabled member
    row = { ...base, kind: 'key', keySecretHash: hash, operatorTokenHash: null };
    view = { kind: 'key', csrfToken, expiresAtMs, principal };
  } else {
    const token = (operatorToken ?? '').trim();
    await d.operatorToken.verify(`Bearer ${token}`);
    row = { ...base, kind: 'operator', keySecretHash: null, operatorTokenHash: sha256Hex(token) };
    view = { kind: 'operator', csrfToken, expiresAtMs };
  }
  await q.deleteExpiredSessions(d.ctx.db, now);
  await q.insertSession(d.ctx.db, row);
  return { secret, view };
}

/** The live session a cookie names, or UNAUTHORIZED. */
export async function findSession(d: Sessions, secret: string | undefined): Promise<q.ConsoleSessionRow> {
  if (!secret) throw sessionRefused();
  const row = await q.findSession(d.ctx.db, sha256Hex(secret));
  if (!row || row.expiresAtMs <= d.ctx.clock.nowMs()) throw sessionRefused('the console session has ended: sign in again');
  return row;
}

/** A change (any method but GET/HEAD) made through a session must carry its CSRF token. */
export function checkCsrf(row: q.ConsoleSessionRow, presented: string | undefined): void {
  const a = Buffer.from(presented ?? '');
  const b = Buffer.from(row.csrfToken);
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    throw csrfRefused(CSRF_HEADER);
  }
}

/** Who a key or person session acts as, now (the key's current state exactly as a call with the key; the person's seat in the current team). */
export function sessionPrincipal(d: Sessions, row: q.ConsoleSessionRow): Principal | Promise<Principal> {
  if (row.kind === 'person') return personPrincipal(d, row);
  if (row.kind !== 'key' || !row.keySecretHash) throw sessionRefused('an operator session does not act as a team member: sign in with an API key');
  return d.keys.authenticateHash(row.keySecretHash);
}

/**
 * A person session acts as the person's member in its current team, with that member's role,
 * while the member and the team are active. Its `keyId` is the session's id (`ses_…`): what a
 * session does is recorded under it, as a key's calls are under the key's id, and no key
 * budget or key policy binds it (there is no key); the member's do.
 */
async function personPrincipal(d: Sessions, row: q.ConsoleSessionRow): Promise<Principal> {
  if (row.personId && !row.teamId) throw noTeam(); // an operator account without a seat: the operator views only
  const seat = row.personId && row.teamId ? await persons.findSeat(d.ctx.db, row.personId, row.teamId) : undefined;
  if (!seat || seat.status !== ACTIVE || !isRole(seat.role) || !row.ref) throw sessionRefused('your membership of this team has ended: sign in again');
  if (seat.teamStatus !== ACTIVE) throw accountSuspended(row.teamId!);
  if (seat.teamRequiresTwoFactor && !seat.personTwoFactor) throw teamRequiresTwoFactor(row.teamId!);
  return { teamId: row.teamId!, memberId: seat.memberId, keyId: row.ref, role: seat.role };
}

/**
 * A new person session (sign-in, a confirm or invite link followed, a team switched, a
 * password changed): a fresh secret, CSRF token and id. `previous`: the cookie the browser
 * had, ended now (a session never survives a sign-in or a change of what it may do).
 */
export async function openPersonSession(d: Sessions, who: SignedIn, opts: { userAgent?: string | undefined; previous?: string | undefined } = {}): Promise<OpenedSession> {
  const now = d.ctx.clock.nowMs();
  const secret = randomBytes(32).toString('base64url');
  const row: q.ConsoleSessionRow = {
    id: sha256Hex(secret), kind: 'person', keySecretHash: null, operatorTokenHash: null, csrfToken: randomBytes(24).toString('base64url'),
    createdAtMs: now, expiresAtMs: now + d.ttlMs, ref: newId('consoleSession', now), personId: who.personId, teamId: who.teamId,
    userAgent: opts.userAgent ? opts.userAgent.slice(0, 200) : null,
  };
  const previous = await d.ctx.db.transaction(async (tx) => {
    await q.deleteExpiredSessions(tx, now);
    const ended = opts.previous ? await q.deleteSessionReturning(tx, sha256Hex(opts.previous)) : undefined;
    await q.insertSession(tx, row);
    return ended;
  });
  announceEnded(d.ctx, previous ? [previous] : []);
  return { secret, view: await describeSession(d, row) };
}

/** The person session a request came with, or 401 (an API key's or the operator's session cannot change a person's account). */
export async function requirePersonSession(d: Sessions, secret: string | undefined, csrf: string | undefined): Promise<q.ConsoleSessionRow & { personId: string }> {
  const row = await findSession(d, secret);
  checkCsrf(row, csrf);
  if (row.kind !== 'person' || !row.personId) throw personSessionRequired();
  return row as q.ConsoleSessionRow & { personId: string };
}

/** Act in another of the person's teams: a new session (rotated) in it, the old one ended. */
export async function switchTeam(d: Sessions, row: q.ConsoleSessionRow & { personId: string }, secret: string, teamId: string, userAgent?: string): Promise<OpenedSession> {
  const seat = await persons.findSeat(d.ctx.db, row.personId, teamId);
  if (!seat || seat.status !== ACTIVE) throw noSeat(teamId);
  if (seat.teamRequiresTwoFactor && !seat.personTwoFactor) throw teamRequiresTwoFactor(teamId);
  return openPersonSession(d, { personId: row.personId, teamId }, { userAgent, previous: secret });
}

export async function listPersonSessions(d: Sessions, row: q.ConsoleSessionRow & { personId: string }) {
  const rows = await q.listPersonSessions(d.ctx.db, row.personId, d.ctx.clock.nowMs());
  return rows.map((r) => ({
    sessionId: r.ref ?? '', current: r.id === row.id, teamId: r.teamId ?? '', userAgent: r.userAgent ?? '',
    createdAt: new Date(r.createdAtMs).toISOString(), expiresAt: new Date(r.expiresAtMs).toISOString(),
  }));
}

/** Sign one of the person's own sessions out (their current one too); another person's reads as not found. */
export async function revokePersonSession(d: Sessions, row: q.ConsoleSessionRow & { personId: string }, sessionId: string): Promise<void> {
  const ended = await q.deletePersonSessionByRef(d.ctx.db, row.personId, sessionId);
  if (!ended) throw notFound('session', sessionId);
  announceEnded(d.ctx, [ended]);
}

/**
 * An operator session acts for the operator while the token it was opened with is the current
 * one; a person session, while its person is an operator with two-factor on (operators.ts).
 */
export async function checkOperatorSession(d: Sessions, row: q.ConsoleSessionRow): Promise<OperatorActor> {
  if (row.kind === 'person' && row.personId) return operatorOfPerson(d.ctx, row.personId);
  if (row.kind !== 'operator' || !row.operatorTokenHash) throw sessionRefused('missing or invalid operator token: this session was opened with an API key');
  await d.operatorToken.verifyHash(row.operatorTokenHash);
  return TOKEN_ACTOR;
}

export async function describeSession(d: Sessions, row: q.ConsoleSessionRow): Promise<SessionView> {
  const view: SessionView = { kind: row.kind as SessionKind, csrfToken: row.csrfToken, expiresAtMs: row.expiresAtMs };
  if (row.kind === 'operator') await checkOperatorSession(d, row);
  else {
    const principal = await Promise.resolve().then(() => sessionPrincipal(d, row)).catch((err: unknown) => {
      // a person in a team that requires two-factor, with it off, is signed in to turn it on: no principal until then
      if (row.kind === 'person' && (isTeamTwoFactorRefusal(err) || !row.teamId)) return undefined;
      throw err;
    });
    if (principal) view.principal = principal;
  }
  if (row.kind === 'person') {
    view.person = await describePerson(d.accounts, row.personId!);
    const operator = await operatorStatus(d.ctx, row.personId!);
    if (operator) view.operator = operator;
  }
  return view;
}

/** Ends the session server-side; the cookie names nothing afterwards. */
export async function closeSession(d: Sessions, row: q.ConsoleSessionRow): Promise<void> {
  await q.deleteSession(d.ctx.db, row.id);
  if (row.kind === 'person') announceEnded(d.ctx, [row]);
}
