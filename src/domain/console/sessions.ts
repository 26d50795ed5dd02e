// Console sessions: signing in exchanges an API key (or the operator token) for a random
// secret the browser keeps in an HttpOnly, SameSite=Strict cookie. Only the secret's hash is
// stored; the key itself is never stored nor sent back. Every call made with the cookie is
// authenticated as the key (or token) it was opened with, at the time of the call: a revoked
// key, a disabled member, a suspended team or a rotated operator token ends what the session
// may do as it ends what the key may do. Every change made through a session carries its CSRF
// token. Signing out deletes the session: the cookie is worthless at once, on every replica.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { csrfRefused, oneCredential, sessionRefused } from './errors.ts';
import { sha256Hex } from '../../lib/ids.ts';
import * as q from '../../store/console-sessions.ts';
import type { Ctx } from '../context.ts';
import type { KeyAuthenticator } from '../keys/authenticator.ts';
import { parseAuthorization } from '../keys/authenticator.ts';
import type { OperatorTokenVerifier } from '../operator-token.ts';
import type { Principal } from '../roles.ts';
import type { Config } from '../../config.ts';

export const SESSION_COOKIE = 'gantry_session';
export const CSRF_HEADER = 'x-csrf-token';

export type SessionKind = 'key' | 'operator';

/** The console area's context: the store, and the key and operator-token checks a session acts through. */
export interface Sessions {
  ctx: Ctx;
  keys: KeyAuthenticator;
  operatorToken: OperatorTokenVerifier;
  ttlMs: number;
}

/** The console sessions' context from the graph (the console area's entry of src/areas.ts): a session stands for a key or the operator token. */
export function sessionsContext(s: { ctx: Ctx; keys: KeyAuthenticator; operatorToken: OperatorTokenVerifier; config: Config }): Sessions {
  return { ctx: s.ctx, keys: s.keys, operatorToken: s.operatorToken, ttlMs: s.config.console.sessionTtlMs };
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
  /** key sessions: who the key is */
  principal?: Principal;
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
  const base = { id: sha256Hex(secret), csrfToken, createdAtMs: now, expiresAtMs };
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

/** Who a key session acts as, now (the key's current state, exactly as a call with the key). */
export function sessionPrincipal(d: Sessions, row: q.ConsoleSessionRow): Principal | Promise<Principal> {
  if (row.kind !== 'key' || !row.keySecretHash) throw sessionRefused('an operator session does not act as a team member: sign in with an API key');
  return d.keys.authenticateHash(row.keySecretHash);
}

/** An operator session acts for the operator while the token it was opened with is the current one. */
export async function checkOperatorSession(d: Sessions, row: q.ConsoleSessionRow): Promise<void> {
  if (row.kind !== 'operator' || !row.operatorTokenHash) throw sessionRefused('missing or invalid operator token: this session was opened with an API key');
  await d.operatorToken.verifyHash(row.operatorTokenHash);
}

export async function describeSession(d: Sessions, row: q.ConsoleSessionRow): Promise<SessionView> {
  const view: SessionView = { kind: row.kind as SessionKind, csrfToken: row.csrfToken, expiresAtMs: row.expiresAtMs };
  if (row.kind === 'key') view.principal = await sessionPrincipal(d, row);
  else await checkOperatorSession(d, row);
  return view;
}

/** Ends the session server-side; the cookie names nothing afterwards. */
export async function closeSession(d: Sessions, row: q.ConsoleSessionRow): Promise<void> {
  await q.deleteSession(d.ctx.db, row.id);
}
