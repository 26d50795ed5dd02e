// The console's one way to the API: the public routes, authenticated by the session cookie
// (sent by the browser, never readable here), with the session's CSRF token on every change.
// An API error is thrown with its message and reason, for the page to show.
import { signal } from '@preact/signals';

/** The signed-in session: { kind, csrfToken, principal? } or null. */
export const session = signal(undefined);

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message || body?.error?.message || `HTTP ${status}`);
    this.status = status;
    this.reason = body?.reason || body?.error?.code || '';
  }
}

export async function api(method, path, body, opts = {}) {
  const headers = { accept: 'application/json' };
  if (method !== 'GET' && method !== 'HEAD' && session.value) headers['x-csrf-token'] = session.value.csrfToken;
  let payload;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(path, { method, headers, body: payload, credentials: 'same-origin', signal: opts.signal });
  const text = await res.text();
  let parsed;
  try { parsed = text ? JSON.parse(text) : {}; } catch { parsed = { message: text }; }
  if (!res.ok) {
    if (res.status === 401 && !opts.signingIn && session.value) session.value = null; // the session ended
    throw new ApiError(res.status, parsed);
  }
  return parsed;
}

export const get = (path, query) => api('GET', query ? `${path}?${new URLSearchParams(clean(query))}` : path);
export const post = (path, body = {}) => api('POST', path, body);
export const put = (path, body) => api('PUT', path, body);

function clean(q) {
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined && v !== null && v !== ''));
}

export async function loadSession() {
  try { session.value = await api('GET', '/console/session', undefined, { signingIn: true }); } catch { session.value = null; }
}

export async function signIn(creds) {
  session.value = await api('POST', '/console/session', creds, { signingIn: true });
}

export async function signOut() {
  try { await api('DELETE', '/console/session'); } finally { session.value = null; }
}

/** Whether the signed-in member's role may do this: the session lists the role's capabilities (src/domain/roles.ts). */
export function can(cap) {
  return !!session.value?.capabilities?.includes(cap);
}

/**
 * Whether the signed-in member may change the limits (budgets, policies) of `member`
 * ({memberId, role}): the API refuses changes to one's own limits except for an Owner, and
 * to an Owner's except by an Owner (docs/compat-decisions.md, Roles).
 */
export function mayLimit(member) {
  const me = session.value?.principal;
  if (!me) return false;
  if (me.role === 'Owner') return true;
  return member.memberId !== me.memberId && member.role !== 'Owner';
}
