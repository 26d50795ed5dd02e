// The URL of a serverless endpoint: `/serverless/{appName}/…` (or `{appName}.{domain}/…`,
// rewritten to it in app.ts) reaches a worker of the caller's team's endpoint with the
// prefix removed, streaming both ways. The router (domain/serverless/router.ts) picks the
// worker or keeps the request waiting.
// A worker is a tenant's code: it is called with an API key only (never a console session),
// receives no Gantry credential (Authorization, x-api-key, the CSRF header and Gantry's
// cookies are removed), and what it answers cannot touch Gantry's cookies nor run script
// as the console: on the path form (the console's origin) every Set-Cookie is dropped and
// the answer is sandboxed (CSP `sandbox`: an opaque origin), on the host form (an origin of
// its own) only cookies named like Gantry's, nameless or with a Domain attribute are dropped
// (docs/compat-decisions.md, "Serverless data plane and runtime").
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Dispatcher } from 'undici';
import { loadUndici, undiciLoaded } from '../../../lib/undici.ts';
import { AppError } from '../../../lib/errors.ts';
import { CSRF_HEADER } from '../../../domain/console/sessions.ts';
import { isGantryCookieName, withoutGantryCookies } from '../../cookies.ts';
import { KeyBearer, errors } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import type { ServerlessRouter } from '../../../domain/serverless/router.ts';
import type { ServerlessPlane } from '../../../domain/serverless/plane.ts';

type EndpointRow = Awaited<ReturnType<ServerlessRouter['resolve']>>;

/** Hop-by-hop headers (RFC 9110 §7.6.1), what the proxy sets itself, and Gantry's credentials (Cookie is passed on without Gantry's cookies). */
const NOT_FORWARDED = new Set(['authorization', 'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization',
  'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'x-api-key', CSRF_HEADER, 'cookie']);
// Set-Cookie is filtered below; `clear-site-data: "cookies"` clears the whole registrable domain's cookies (the console's too)
const NOT_RETURNED = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade',
  'clear-site-data', 'set-cookie']);
/** On the path form, headers whose effect reaches the whole (console's) origin, not this answer. */
const NOT_RETURNED_ON_PATH = new Set(['strict-transport-security', 'alt-svc', 'nel', 'report-to', 'reporting-endpoints', 'service-worker-allowed']);

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

export default function serverlessProxyRoute(app: App, s: { serverlessRuntime: ServerlessPlane }): void {
  const { router, metrics } = s.serverlessRuntime;
  void app.register((child, _opts, registered) => {
    // The body is passed on as it arrives, never parsed or buffered.
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', (_req, _payload, done) => done(null));
    const options = {
      config: {
        family: 'serverless' as const, auth: { kind: 'key' as const, capability: 'callModels' as const, consoleSession: false },
        // documented, never serialized: the worker's answer passes through as it comes
        docResponses: { 200: Type.Unknown({ description: "the worker's answer (any status, headers and body), plus x-gantry-worker-id and x-gantry-queue-ms" }) },
      },
      bodyLimit: Number.MAX_SAFE_INTEGER,
      schema: {
        tags: ['serverless'], summary: 'Call a serverless endpoint: any method and path under its URL reaches a worker', security: KeyBearer,
        params: Type.Object({ appName: Type.String({ maxLength: 46 }), '*': Type.Optional(Type.String()) }),
        response: errors(401, 404, 429, 503, 504),
      },
    };
    const handler = async (req: FastifyRequest, reply: FastifyReply) => {
      const p = principalOf(req);
      const params = req.params as { appName: string };
      const ep = await router.resolve(p.teamId, params.appName);
      const prefix = `/serverless/${params.appName}`;
      const rawUrl = req.raw.url ?? '/';
      let rest = rawUrl.startsWith(prefix) ? rawUrl.slice(prefix.length) : '/';
      if (!rest.startsWith('/')) rest = `/${rest}`;
      // one signal for both ends of a request: the client leaving, and requestTimeout (`ended.cut`)
      const ac = new AbortController();
      reply.raw.on('close', () => { if (!reply.raw.writableFinished) ac.abort(); });
      const ended = { cut: false };
      // the endpoint's metrics count every request that ends here, except one whose client left
      try {
        const status = await forward(req, reply, ep, rest, ac, ended);
        metrics.request(ep.id, status < 500);
        return reply;
      } catch (e) {
        if (!ac.signal.aborted || ended.cut) metrics.request(ep.id, false);
        throw e;
      }
    };
    /** Take a worker's slot (waiting in the queue) and pass the request on; the worker's status. */
    const forward = async (req: FastifyRequest, reply: FastifyReply, ep: EndpointRow, rest: string, ac: AbortController, ended: { cut: boolean }): Promise<number> => {
      const { request } = undiciLoaded() ?? await loadUndici(); // before a worker's slot is taken
      const d = await router.dispatch(ep, ac.signal);
      const timeoutMs = ep.spec.workerConfig.requestTimeout * 1000;
      const timer = setTimeout(() => {
        ended.cut = true;
        ac.abort();
      }, timeoutMs);
      const done = () => { clearTimeout(timer); d.release(); };
      const headers: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !NOT_FORWARDED.has(k)) headers[k] = v as string | string[];
      const cookie = typeof req.headers.cookie === 'string' ? withoutGantryCookies(req.headers.cookie) : undefined;
      if (cookie) headers.cookie = cookie;
      headers['x-forwarded-host'] = req.headers.host ?? '';
      headers['x-forwarded-proto'] = req.protocol;
      headers['x-forwarded-for'] = req.ip;
      headers['x-request-id'] = req.id;
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined);
      let res: Dispatcher.ResponseData;
      try {
        res = await request(`http://${d.worker.address}${rest}`, {
          method: req.method as Dispatcher.HttpMethod, headers, body: hasBody ? (req.raw as Readable) : undefined,
          signal: ac.signal, headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
        });
      } catch (e) {
        done();
        if (ended.cut) {
          throw new AppError('GATEWAY_TIMEOUT', `worker ${d.worker.id} did not answer within the endpoint's requestTimeout of ${ep.spec.workerConfig.requestTimeout} s`, { workerId: d.worker.id });
        }
        throw new AppError('SERVICE_NOT_AVAILABLE', `worker ${d.worker.id} could not be reached: ${e instanceof Error ? e.message : String(e)}`, { workerId: d.worker.id });
      }
      const body = res.body as unknown as Readable;
      body.once('close', done);
      ac.signal.addEventListener('abort', () => body.destroy(new Error(ended.cut ? `cut after the endpoint's requestTimeout of ${ep.spec.workerConfig.requestTimeout} s` : 'the client went away')), { once: true });
      reply.code(res.statusCode);
      // rewritten from `{appName}.{domain}` (app.ts): an origin apart from the console's
      const hostForm = req.originalUrl !== req.url;
      for (const [k, v] of Object.entries(res.headers)) {
        if (v !== undefined && !NOT_RETURNED.has(k) && (hostForm || !NOT_RETURNED_ON_PATH.has(k))) reply.header(k, v);
      }
      if (hostForm) {
        const cookies = hostFormCookies(res.headers['set-cookie']);
        if (cookies.length) reply.header('set-cookie', cookies);
      } else {
        // the console's origin: any HTML is an opaque origin without script, and not sniffed into HTML
        const csp = res.headers['content-security-policy'];
        reply.header('content-security-policy', [...[csp ?? []].flat(), 'sandbox']);
        reply.header('x-content-type-options', 'nosniff');
      }
      reply.header('x-gantry-worker-id', d.worker.id);
      reply.header('x-gantry-queue-ms', String(d.queueMs));
      reply.send(body);
      return res.statusCode;
    };
    for (const url of ['/serverless/:appName', '/serverless/:appName/*']) {
      child.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], url, ...options, handler: handler as never });
    }
    registered();
  });
}
