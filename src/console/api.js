// @ts-check
// The console's one way to the API: the public routes, authenticated by the session cookie
// (sent by the browser, never readable here), with the session's CSRF token on every change.
// An API error is thrown with its message and reason, for the page to show.
import { signal } from '@preact/signals';
import { inDollars } from './money.js';

/**
 * @typedef {{ teamId: string, memberId: string, keyId: string, role: string }} Principal
 * @typedef {{ teamId: string, name: string, memberId: string, role: string, status: string, requiresTwoFactor: boolean }} PersonTeam
 * @typedef {{ personId: string, email: string, emailVerified: boolean, twoFactor: { enabled: boolean, recoveryCodesLeft: number }, teams: PersonTeam[] }} Person
 * A person's session has no `principal` while their team requires two-factor sign-in and they have not turned it on.
 * A person's session of an operator account has `operator` (its views closed while `twoFactorRequired`), and no `principal` when the person holds no seat.
 * @typedef {{ kind: 'key' | 'operator' | 'person', csrfToken: string, expiresAt: string, capabilities: string[], principal?: Principal, person?: Person, operator?: { grantId: string, twoFactorRequired: boolean } }} Session
 * An answer of the API, parsed: the pages read the fields they show (the routes' schemas say what they are).
 * @typedef {any} Json
 */

/** The signed-in session; null when signed out, undefined until it is known. */
export const session = signal(/** @type {Session | null | undefined} */ (undefined));

/** The signed-in member: the pages of a team are shown only while a key's session is open. */
export function principal() {
  return /** @type {Principal} */ (session.value?.principal);
}

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {Json} body
   */
  constructor(status, body) {
    super(inDollars(body?.message || body?.error?.message || `HTTP ${status}`));
    this.status = status;
    this.reason = body?.reason || body?.error?.code || '';
    /** the request's field the API refused, and the rule it broke (metadata of the GPU and tenant families; OpenAI's `param`), for a form to show at the field */
    this.field = String(body?.metadata?.field ?? body?.error?.param ?? '');
    this.rule = inDollars(String(body?.metadata?.rule ?? ''));
  }
}

/** No answer came: the network or the server is down. Pages show it once, with a retry (ui.js). */
export class NetworkError extends Error {
  constructor() {
    super('Gantry could not be reached: the network or the server is down.');
    this.status = 0;
    this.reason = 'NETWORK';
    this.network = true;
  }
}

/**
 * What to say of an answer that is not the API's JSON (a proxy's error page, a gateway's HTML):
 * its status and a short plain text, never its markup.
 * @param {Response} res
 * @param {string} text
 */
function notJson(res, text) {
  const plain = /^text\/plain/i.test(res.headers.get('content-type') ?? '') && !/[<>]/.test(text) ? text.trim().slice(0, 200) : '';
  return plain || `the server answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''} with a page instead of the API's answer${res.status >= 500 ? ': it may be restarting or behind a failing proxy' : ''}`;
}

/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body] JSON, or a FormData sent as it is
 * @param {{ signal?: AbortSignal, signingIn?: boolean }} [opts]
 * @returns {Promise<Json>}
 */
export async function api(method, path, body, opts = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  if (method !== 'GET' && method !== 'HEAD' && session.value) headers['x-csrf-token'] = session.value.csrfToken;
  let payload;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  /** @type {Response} */
  let res;
  let text;
  try {
    res = await fetch(path, { method, headers, body: payload, credentials: 'same-origin', signal: opts.signal });
    text = await res.text();
  } catch (e) {
    if (/** @type {Error} */ (e)?.name === 'AbortError') throw e;
    throw new NetworkError(); // fetch rejects only when no answer came: say so, not "Failed to fetch"
  }
  let parsed;
  try { parsed = text ? JSON.parse(text) : {}; } catch { parsed = { message: notJson(res, text) }; }
  if (!res.ok) {
    if (res.status === 401 && !opts.signingIn && session.value) session.value = null; // the session ended
    throw new ApiError(res.status, parsed);
  }
  return parsed;
}

/** @typedef {Record<string, string | number | boolean | null | undefined>} Query */

/** @type {(path: string, query?: Query) => Promise<Json>} */
export const get = (path, query) => api('GET', query ? `${path}?${new URLSearchParams(clean(query))}` : path);
/** @type {(path: string, body?: unknown) => Promise<Json>} */
export const post = (path, body = {}) => api('POST', path, body);
/** @type {(path: string, body: unknown) => Promise<Json>} */
export const put = (path, body) => api('PUT', path, body);

/**
 * The parameters that have a value.
 * @param {Query} q
 * @returns {Record<string, string>}
 */
function clean(q) {
  // URLSearchParams turns the numbers and booleans into text
  return /** @type {Record<string, string>} */ (Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined && v !== null && v !== '')));
}

export async function loadSession() {
  try { session.value = await api('GET', '/console/session', undefined, { signingIn: true }); } catch { session.value = null; }
}

/**
 * Signs in: an API key, the operator token, or a person's e-mail and password (with the
 * second factor when theirs is on).
 * @param {{ apiKey: string } | { operatorToken: string } | { email: string, password: string, totp?: string, recoveryCode?: string }} creds
 */
export async function signIn(creds) {
  session.value = await api('POST', '/console/session', creds, { signingIn: true });
}

/**
 * A route that answers with a new session (a link followed, a team switched, a password
 * changed): it becomes the console's session; the one it replaced has ended server-side.
 * @param {string} path
 * @param {unknown} body
 */
export async function openWith(path, body) {
  session.value = await api('POST', path, body, { signingIn: true });
  return session.value;
}

export async function signOut() {
  try { await api('DELETE', '/console/session'); } finally { session.value = null; }
}

/** Whether the signed-in member's role may do this: the session lists the role's capabilities (src/domain/roles.ts). */
/** @param {string} cap */
export function can(cap) {
  return !!session.value?.capabilities?.includes(cap);
}

/**
 * Whether the signed-in member may change the limits (budgets, policies) of `member`
 * ({memberId, role}): the API refuses changes to one's own limits except for an Owner, and
 * to an Owner's except by an Owner (docs/compat-decisions.md, Roles).
 */
/** @param {{ memberId: string, role: string }} member */
export function mayLimit(member) {
  const me = session.value?.principal;
  if (!me) return false;
  if (me.role === 'Owner') return true;
  return member.memberId !== me.memberId && member.role !== 'Owner';
}

/**
 * A change that asks again for the password or a code (the e-mail address, two-factor): a
 * refusal of those (401) is a wrong answer, not the end of the session.
 * @type {(path: string, body?: unknown) => Promise<Json>}
 */
export const postAsking = (path, body = {}) => api('POST', path, body, { signingIn: true });
