// Routes whose body is passed on to a tenant's server as it arrives (a serverless endpoint's
// URL, an instance's port): any method, the body never parsed nor buffered, the answer written
// by the handler as it streams.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from './types.ts';

type RouteOptions = Omit<Parameters<App['route']>[0], 'url' | 'method' | 'handler'>;

export const PASSTHROUGH_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Register `handler` at each of `urls`, in a scope where no content type is parsed. */
export function passthroughRoutes(app: App, urls: readonly string[], options: RouteOptions, handler: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>): void {
  void app.register((child, _opts, registered) => {
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', (_req, _payload, done) => done(null));
    for (const url of urls) child.route({ method: [...PASSTHROUGH_METHODS], url, ...options, handler });
    registered();
  });
}
