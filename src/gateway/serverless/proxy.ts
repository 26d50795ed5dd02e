// The serverless data plane's reverse proxy: a call to an endpoint's URL reaches a worker of
// the caller's team's endpoint with the URL's prefix removed, streaming both ways. The router
// (domain/serverless/router.ts) picks the worker or keeps the call waiting for one.
// A worker is a tenant's code: it receives no Gantry credential (Authorization, x-api-key,
// the CSRF header and Gantry's cookies are removed), and what it answers cannot touch
// Gantry's cookies nor run script as the console: on the path form (the console's origin)
// every Set-Cookie is dropped and the answer is sandboxed (CSP `sandbox`: an opaque origin),
// on the host form (an origin of its own) only cookies named like Gantry's, nameless or with
// a Domain attribute are dropped (docs/compat-decisions.md, "Serverless data plane and
// runtime"). Framework-free: the route (http/routes/serverless-proxy/proxy.ts) hands the call
// in and writes the answer out.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { loadUndici, undiciLoaded } from '../../lib/undici.ts';
import { CSRF_HEADER } from '../../domain/console/sessions.ts';
import { isGantryCookieName, withoutGantryCookies } from '../../domain/console/cookies.ts';
import type { ServerlessPlane } from '../../domain/serverless/plane.ts';
import type { Dispatched, ServerlessRouter } from '../../domain/serverless/router.ts';
import { workerTimedOut, workerUnreachable } from './errors.ts';

type EndpointRow = Awaited<ReturnType<ServerlessRouter['resolve']>>;

/** Hop-by-hop headers (RFC 9110 §7.6.1), what the proxy sets itself, and Gantry's credentials (Cookie is passed on without Gantry's cookies). */
const NOT_FORWARDED = new Set(['authorization', 'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization',
  'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'x-api-key', CSRF_HEADER, 'cookie']);
// Set-Cookie is filtered below; `clear-site-data: "cookies"` clears the whole registrable domain's cookies (the console's too)
const NOT_RETURNED = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade',
  'clear-site-data', 'set-cookie']);
/** On the path form, headers whose effect reaches the whole (console's) origin, not this answer. */
const NOT_RETURNED_ON_PATH = new Set(['strict-transport-security', 'alt-svc', 'nel', 'report-to', 'reporting-endpoints', 'service-worker-allowed']);

/** A call to an endpoint's URL, as the HTTP layer received it. */
export interface EndpointCall {
  teamId: string;
  appName: string;
  method: string;
  /** the URL as routed: `/serverless/{appName}/…` (the host form rewritten to it) */
  url: string;
  headers: IncomingHttpHeaders;
  /** the request's bytes, passed on as they come (read only when the method and headers say there is a body) */
  body: Readable;
  ip: string;
  protocol: string;
  requestId: string;
  /** called at `{appName}.{domain}`: an origin apart from the console's */
  hostForm: boolean;
}

/** The worker's answer as the client gets it: its status, the headers that may pass, its body as it streams. */
export interface WorkerAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Readable;
}

/** One call's end: `cut` when the endpoint's requestTimeout ended it, rather than the client leaving. */
interface CallEnd {
  abort: AbortController;
  cut: boolean;
}

/**
 * Pass `call` to a worker of its endpoint (waiting in the queue for a slot) and answer with
 * the worker's answer. `clientGone` aborts both ends; the endpoint's requestTimeout does too.
 * The endpoint's metrics count every call that ends here, except one whose client left.
 */
export async function callEndpoint(plane: Pick<ServerlessPlane, 'router' | 'metrics'>, call: EndpointCall, clientGone: AbortSignal): Promise<WorkerAnswer> {
  const ep = await plane.router.resolve(call.teamId, call.appName);
  const end: CallEnd = { abort: new AbortController(), cut: false };
  const onGone = () => end.abort.abort();
  if (clientGone.aborted) onGone();
  else clientGone.addEventListener('abort', onGone, { once: true });
  try {
    const answer = await forward(plane.router, ep, call, end);
    plane.metrics.request(ep.id, answer.status < 500);
    return answer;
  } catch (e) {
    if (!end.abort.signal.aborted || end.cut) plane.metrics.request(ep.id, false);
    throw e;
  }
}

/** Take a worker's slot and pass the call on; the slot is given back when the answer's body closes. */
async function forward(router: ServerlessRouter, ep: EndpointRow, call: EndpointCall, end: CallEnd): Promise<WorkerAnswer> {
  const { request } = undiciLoaded() ?? await loadUndici(); // before a worker's slot is taken
  const d = await router.dispatch(ep, end.abort.signal);
  const timeoutS = ep.spec.workerConfig.requestTimeout;
  const timer = setTimeout(() => {
    end.cut = true;
    end.abort.abort();
  }, timeoutS * 1000);
  const done = () => { clearTimeout(timer); d.release(); };
  let res: Dispatcher.ResponseData;
  try {
    res = await request(`http://${d.worker.address}${restOf(call)}`, {
      method: call.method as Dispatcher.HttpMethod, headers: forwardedHeaders(call), body: hasBody(call) ? call.body : undefined,
      signal: end.abort.signal, headersTimeout: timeoutS * 1000, bodyTimeout: timeoutS * 1000,
    });
  } catch (e) {
    done();
    throw end.cut ? workerTimedOut(d.worker.id, timeoutS) : workerUnreachable(d.worker.id, e);
  }
  const body = res.body as unknown as Readable;
  body.once('close', done);
  end.abort.signal.addEventListener('abort', () => body.destroy(new Error(end.cut ? `cut after the endpoint's requestTimeout of ${timeoutS} s` : 'the client went away')), { once: true });
  return { status: res.statusCode, headers: returnedHeaders(res.headers, call.hostForm, d), body };
}

/** The path under the endpoint's URL, the query kept: `/serverless/app/x?y` → `/x?y`. */
function restOf(call: EndpointCall): string {
  const prefix = `/serverless/${call.appName}`;
  const rest = call.url.startsWith(prefix) ? call.url.slice(prefix.length) : '/';
  return rest.startsWith('/') ? rest : `/${rest}`;
}

function hasBody(call: EndpointCall): boolean {
  return call.method !== 'GET' && call.method !== 'HEAD' && (call.headers['content-length'] !== undefined || call.headers['transfer-encoding'] !== undefined);
}

/** The client's headers without Gantry's credentials and the hop-by-hop ones, plus where the call came from. */
function forwardedHeaders(call: EndpointCall): Record<string, string | string[]> {
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

/** The worker's headers that may reach the client, by the form it was called at, and which worker answered after how long a wait. */
function returnedHeaders(worker: IncomingHttpHeaders, hostForm: boolean, d: Dispatched): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(worker)) {
    if (v !== undefined && !NOT_RETURNED.has(k) && (hostForm || !NOT_RETURNED_ON_PATH.has(k))) out[k] = v;
  }
  if (hostForm) {
    const cookies = hostFormCookies(worker['set-cookie']);
    if (cookies.length) out['set-cookie'] = cookies;
  } else {
    // the console's origin: any HTML is an opaque origin without script, and not sniffed into HTML
    out['content-security-policy'] = [...[worker['content-security-policy'] ?? []].flat(), 'sandbox'];
    out['x-content-type-options'] = 'nosniff';
  }
  out['x-gantry-worker-id'] = d.worker.id;
  out['x-gantry-queue-ms'] = String(d.queueMs);
  return out;
}

/**
 * The worker's Set-Cookie values the host form passes on: none named like Gantry's, none
 * with a Domain (it could reach the console's host), none without a name (a browser sends
 * `=a=b` back as `a=b`).
 */
function hostFormCookies(setCookie: string | string[] | undefined): string[] {
  return [setCookie ?? []].flat().filter((c) => {
    const [pair = '', ...attrs] = c.split(';');
    const name = pair.includes('=') ? pair.slice(0, pair.indexOf('=')).trim() : '';
    return name !== '' && !isGantryCookieName(name) && !attrs.some((a) => /^\s*domain\s*(=|$)/i.test(a));
  });
}
