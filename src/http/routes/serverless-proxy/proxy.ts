// The URL of a serverless endpoint: `/serverless/{appName}/…` (or `{appName}.{domain}/…`,
// rewritten to it in app.ts), any method, reaches a worker of the caller's team's endpoint
// through the data plane (gateway/serverless/proxy.ts: what passes each way and why). A
// worker is a tenant's code: it is called with an API key only, never a console session
// (`consoleSession: false`), and its body and answer stream through unparsed.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { callEndpoint } from '../../../gateway/serverless/proxy.ts';
import type { ServerlessPlane } from '../../../domain/serverless/plane.ts';
import { KeyBearer, errors } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { passthroughRoutes } from '../../passthrough-routes.ts';

const OPTIONS = {
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

export default function serverlessProxyRoute(app: App, s: { serverlessRuntime: ServerlessPlane }): void {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    // the client leaving (before the answer is all sent) ends the call at both ends
    const gone = new AbortController();
    reply.raw.on('close', () => { if (!reply.raw.writableFinished) gone.abort(); });
    const answer = await callEndpoint(s.serverlessRuntime, {
      teamId: principalOf(req).teamId, appName: (req.params as { appName: string }).appName, method: req.method, url: req.raw.url ?? '/',
      headers: req.headers, body: req.raw, ip: req.ip, protocol: req.protocol, requestId: req.id, hostForm: req.originalUrl !== req.url,
    }, gone.signal);
    reply.code(answer.status);
    for (const [k, v] of Object.entries(answer.headers)) reply.header(k, v);
    return reply.send(answer.body);
  };
  // the body is passed on as it arrives, never parsed or buffered
  passthroughRoutes(app, ['/serverless/:appName', '/serverless/:appName/*'], OPTIONS, handler);
}
