// An instance's HTTP port through Gantry: `/ports/{instanceId}/{port}/…` (or
// `{instance}-{port}.{domain}/…`, rewritten to it in app.ts), any method, WebSocket upgrades
// included, reaches the port's endpoint (gateway/ports: who may, and what passes each way).
// Signed in by an API key of the team, or by the port's cookie, which a link's one-time ticket
// is exchanged for here (303 to the same URL without the ticket): a browser cannot send
// Authorization, and the console's own cookie stays on the API's host. Bodies stream through unparsed.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { callPort, type PortCall, upgradePort, withoutTicket } from '../../../gateway/ports/proxy.ts';
import { COOKIE_TTL_MS } from '../../../gateway/ports/passes.ts';
import { PORT_COOKIE, PORTS_PREFIX, portCaller, portTarget, TICKET_PARAM, type PortCredentials, type Ports } from '../../../gateway/ports/ports.ts';
import { KeyBearer, errors } from '../../schemas.ts';
import { acceptUpgradesWhere, pendingUpgrade } from '../../terminal-socket.ts';
import type { App } from '../../types.ts';
import { passthroughRoutes } from '../../passthrough-routes.ts';
import { portOfHost } from '../../ports-host.ts';

const OPTIONS = {
  // public: the route signs its caller in itself (an API key, a ticket or the port's cookie: gateway/ports/ports.ts portCaller)
  config: {
    family: 'serverless' as const, auth: { kind: 'public' as const },
    docResponses: { 200: Type.Unknown({ description: "the port's answer (any status, headers and body); 101 for a WebSocket" }) },
  },
  bodyLimit: Number.MAX_SAFE_INTEGER,
  schema: {
    tags: ['gpu-instances'], summary: 'Reach an HTTP port of a running instance: any method and path under its address', security: KeyBearer,
    params: Type.Object({
      instanceId: Type.String({ maxLength: 64 }), port: Type.Integer({ minimum: 1, maximum: 65535 }), '*': Type.Optional(Type.String()),
    }),
    response: errors(401, 403, 404, 429, 503),
  },
};

/** What the request presents: Authorization, the link's ticket, every port cookie. */
function credentialsOf(req: FastifyRequest): PortCredentials {
  const url = req.raw.url ?? '';
  const q = url.indexOf('?');
  const ticket = q < 0 ? undefined : new URLSearchParams(url.slice(q + 1)).get(TICKET_PARAM) ?? undefined;
  const cookies = String(req.headers.cookie ?? '').split(';').map((c) => c.trim())
    .filter((c) => c.startsWith(`${PORT_COOKIE}=`)).map((c) => c.slice(PORT_COOKIE.length + 1));
  return { authorization: req.headers.authorization, ticket, cookies };
}

/** The port's cookie: host-only on the host form, on the path form only under the port's prefix. */
function portCookie(req: FastifyRequest, value: string, hostForm: boolean, prefix: string): string {
  const https = req.protocol === 'https';
  return `${PORT_COOKIE}=${value}; Path=${hostForm ? '/' : prefix}; HttpOnly; SameSite=Lax; Max-Age=${COOKIE_TTL_MS / 1000}${https ? '; Secure' : ''}`;
}

export default function portsProxyRoute(app: App, s: { ports: Ports }): void {
  const apiHost = new URL(s.ports.baseUrl()).host.toLowerCase().replace(/:\d+$/, '');
  acceptUpgradesWhere(app, (req) => (req.url ?? '').startsWith(`${PORTS_PREFIX}/`)
    || (s.ports.domain !== undefined && portOfHost(s.ports.domain, apiHost, req.headers.host) !== undefined));
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const { instanceId, port } = req.params as { instanceId: string; port: number };
    const hostForm = req.originalUrl !== req.url;
    const caller = await portCaller(s.ports, credentialsOf(req), instanceId, port, () => req.ip);
    const endpoint = await portTarget(s.ports, caller.principal, instanceId, port);
    if (caller.newCookie) {
      // the ticket is spent here: the browser comes back with the cookie, and the port's app never sees either
      reply.header('set-cookie', portCookie(req, caller.newCookie, hostForm, `${PORTS_PREFIX}/${instanceId}/${port}`));
      return reply.code(303).header('location', withoutTicket(req.originalUrl)).header('cache-control', 'no-store').send();
    }
    const call: PortCall = {
      instanceId, port, method: req.method, url: req.raw.url ?? '/', headers: req.headers, body: req.raw,
      ip: req.ip, protocol: req.protocol, requestId: req.id, hostForm,
    };
    const upgrade = pendingUpgrade(req.raw);
    if (upgrade) {
      await upgradePort(endpoint, call, upgrade);
      return reply.hijack();
    }
    const gone = new AbortController();
    reply.raw.on('close', () => { if (!reply.raw.writableFinished) gone.abort(); });
    const answer = await callPort(endpoint, call, gone.signal);
    reply.code(answer.status);
    for (const [k, v] of Object.entries(answer.headers)) reply.header(k, v);
    return reply.send(answer.body);
  };
  // the body is passed on as it arrives, never parsed or buffered
  passthroughRoutes(app, [`${PORTS_PREFIX}/:instanceId/:port`, `${PORTS_PREFIX}/:instanceId/:port/*`], OPTIONS, handler);
}
