// `GET /`: where a person or a client who found the server goes next. The first start prints
// the address; opening it answered 404. A browser gets a page with the two ways in, the web
// console and the API reference; any other client the same as JSON. Links are relative: the
// server's public address may be a proxy's.
import { Type } from 'typebox';
import type { App } from '../../types.ts';

const WAYS = {
  name: 'Gantry',
  console: '/console',
  docs: '/docs/',
  openapi: '/openapi.json',
  health: '/healthz',
};

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gantry</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5">
<h1>Gantry</h1>
<p>This server is running. The ways in:</p>
<ul>
<li><a href="/console">The web console</a>: sign in with an API key or the operator token (the first start printed both and saved them in the data dir's <code>credentials.json</code>).</li>
<li><a href="/docs/">The API reference</a>: every operation, and <a href="/openapi.json">/openapi.json</a> for clients.</li>
</ul>
</body></html>
`;

/** Whether the client asked for a page before JSON (a browser's Accept lists text/html first). */
function wantsPage(accept: string | undefined): boolean {
  if (!accept) return false;
  const html = accept.indexOf('text/html');
  const json = accept.indexOf('application/json');
  return html !== -1 && (json === -1 || html < json);
}

export default function root(app: App): void {
  app.get('/', {
    config: {
      family: 'account', auth: { kind: 'public' },
      docResponses: {
        200: {
          description: 'the ways in: an HTML page for a browser (Accept: text/html), else JSON',
          content: {
            'application/json': { schema: Type.Object({ name: Type.String(), console: Type.String(), docs: Type.String(), openapi: Type.String(), health: Type.String() }) },
            'text/html': { schema: Type.String() },
          },
        },
      },
    },
    schema: { tags: ['system'], summary: 'Where to go: the web console (/console) and the API reference (/docs/)' },
  }, async (req, reply) => {
    reply.header('vary', 'accept');
    if (!wantsPage(req.headers.accept)) return WAYS;
    reply.header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
    return reply.type('text/html; charset=utf-8').send(PAGE);
  });
}
