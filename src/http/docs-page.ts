// The API reference page (/docs, Scalar), loaded on its first request rather than at start.
// The plugin's module holds the page's 4.3 MB browser bundle as a string that V8 keeps twice
// (the module's source and the string itself, both UTF-16: ~17 MB of heap) and pulls in ~110
// modules of OpenAPI tooling; an idle server that nobody reads the docs of carried all of it.
// The routes are declared at start (Fastify takes none after it is ready), as the plugin
// declares them; their first request runs the plugin against a recorder of its routes and
// each route hands over to the plugin's own handler, so the answers are the plugin's.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from './types.ts';

const PREFIX = '/docs';
const OPTIONS = { routePrefix: PREFIX, configuration: { url: '/openapi.json' } };
/** What the plugin registers with these options on a router that ignores trailing slashes. */
export const DOCS_ROUTES = [`${PREFIX}/`, `${PREFIX}/js/scalar.js`] as const;

type Handler = (req: FastifyRequest, reply: FastifyReply) => unknown;

/** The plugin's handlers by URL: the plugin run once against an object that records its routes. */
async function loadHandlers(app: App): Promise<Map<string, Handler>> {
  const { default: plugin } = await import('@scalar/fastify-api-reference');
  const handlers = new Map<string, Handler>();
  const recorder = {
    route: (r: { method: string; url: string; handler: Handler }) => void handlers.set(r.url, r.handler),
    hasPlugin: (name: string) => app.hasPlugin(name),
    initialConfig: app.initialConfig,
    log: app.log,
  };
  await new Promise<void>((resolve, reject) => {
    (plugin as unknown as (f: unknown, o: unknown, next: (e?: Error) => void) => void)(recorder, OPTIONS, (e) => (e ? reject(e) : resolve()));
  });
  const urls = [...handlers.keys()].sort().join(' ');
  if (urls !== [...DOCS_ROUTES].sort().join(' ')) throw new Error(`the docs plugin registers ${urls}, not ${DOCS_ROUTES.join(' ')}`);
  return handlers;
}

export function registerDocsPage(app: App): void {
  let loading: Promise<Map<string, Handler>> | undefined;
  // a load that failed is tried again by the next request
  const handlers = () => (loading ??= loadHandlers(app).catch((e) => {
    loading = undefined;
    throw e;
  }));
  for (const url of DOCS_ROUTES) {
    app.route({
      method: 'GET', url, schema: { hide: true }, config: { family: 'account', auth: { kind: 'public' } },
      handler: async (req, reply) => (await handlers()).get(url)!(req, reply),
    });
  }
}
