// What passes between a client and a tenant's own HTTP server when Gantry stands in between
// (the serverless data plane, gateway/serverless/proxy.ts, and an instance's ports,
// gateway/ports/proxy.ts): the tenant's code receives no Gantry credential (Authorization,
// x-api-key, the CSRF header and Gantry's cookies are removed) and what it answers cannot touch
// Gantry's cookies nor run script as the console: on the path form (the console's origin)
// every Set-Cookie is dropped and the answer is sandboxed (CSP `sandbox`: an opaque origin),
// on the host form (an origin of its own) only cookies named like Gantry's, nameless or with
// a Domain attribute are dropped (docs/compat-decisions.md, "Serverless data plane and runtime").
import type { IncomingHttpHeaders } from 'node:http';
import { CSRF_HEADER } from '../domain/console/sessions.ts';
import { isGantryCookieName, withoutGantryCookies } from '../domain/console/cookies.ts';

/** Hop-by-hop headers (RFC 9110 §7.6.1), what the proxy sets itself, and Gantry's credentials (Cookie is passed on without Gantry's cookies). */
const NOT_FORWARDED = new Set(['authorization', 'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization',
  'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'x-api-key', CSRF_HEADER, 'cookie']);
// Set-Cookie is filtered below; `clear-site-data: "cookies"` clears the whole registrable domain's cookies (the console's too)
const NOT_RETURNED = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade',
  'clear-site-data', 'set-cookie']);
/** On the path form, headers whose effect reaches the whole (console's) origin, not this answer. */
const NOT_RETURNED_ON_PATH = new Set(['strict-transport-security', 'alt-svc', 'nel', 'report-to', 'reporting-endpoints', 'service-worker-allowed']);

/** Where a forwarded call came from: what the X-Forwarded-* headers say. */
export interface CallOrigin {
  headers: IncomingHttpHeaders;
  ip: string;
  protocol: string;
  requestId: string;
}

/** Whether a request carries a body to pass on. */
export function hasBody(method: string, headers: IncomingHttpHeaders): boolean {
  return method !== 'GET' && method !== 'HEAD' && (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined);
}

/** The client's headers without Gantry's credentials and the hop-by-hop ones, plus where the call came from. */
export function forwardedHeaders(call: CallOrigin): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(call.headers)) if (v !== undefined && !NOT_FORWARDED.has(k)) headers[k] = v;
  const cookie = typeof call.headers.cookie === 'string' ? withoutGantryCookies(call.headers.cookie) : undefined;
  if (cookie) headers.cookie = cookie;
  headers['x-forwarded-host'] = call.headers.host ?? '';
  headers['x-forwarded-proto'] = call.protocol;
  headers['x-forwarded-for'] = call.ip;
  headers['x-request-id'] = call.requestId;
  return headers;
}

/** The tenant server's headers that may reach the client, by the form it was called at. */
export function returnedHeaders(upstream: IncomingHttpHeaders, hostForm: boolean): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(upstream)) {
    if (v !== undefined && !NOT_RETURNED.has(k) && (hostForm || !NOT_RETURNED_ON_PATH.has(k))) out[k] = v;
  }
  if (hostForm) {
    const cookies = hostFormCookies(upstream['set-cookie']);
    if (cookies.length) out['set-cookie'] = cookies;
  } else {
    // the console's origin: any HTML is an opaque origin without script, and not sniffed into HTML
    out['content-security-policy'] = [...[upstream['content-security-policy'] ?? []].flat(), 'sandbox'];
    out['x-content-type-options'] = 'nosniff';
  }
  return out;
}

/**
 * The Set-Cookie values the host form passes on: none named like Gantry's, none with a
 * Domain (it could reach the console's host), none without a name (a browser sends `=a=b`
 * back as `a=b`).
 */
function hostFormCookies(setCookie: string | string[] | undefined): string[] {
  return [setCookie ?? []].flat().filter((c) => {
    const [pair = '', ...attrs] = c.split(';');
    const name = pair.includes('=') ? pair.slice(0, pair.indexOf('=')).trim() : '';
    return name !== '' && !isGantryCookieName(name) && !attrs.some((a) => /^\s*domain\s*(=|$)/i.test(a));
  });
}
