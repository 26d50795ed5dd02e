// Host-based endpoint URLs (GANTRY_SERVERLESS_DOMAIN): a request for `{appName}.{domain}`
// is routed as `/serverless/{appName}{path}`, so the proxy route serves both URL forms and
// everything after it (auth, the team's endpoint, the worker) is one path. The API's own
// host is never rewritten, even when it lies under the domain.
import type { IncomingMessage } from 'node:http';
import { APP_NAME_PATTERN, MAX_APP_NAME } from '../domain/serverless/spec.ts';

const stripPort = (host: string) => host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');

/** Fastify's `rewriteUrl` for the serverless domain, or undefined when it is not set. */
export function serverlessHostRewrite(domain: string | undefined, publicBaseUrl: string): ((req: IncomingMessage) => string) | undefined {
  if (!domain) return undefined;
  const suffix = `.${stripPort(domain)}`;
  const apiHost = stripPort(new URL(publicBaseUrl).host);
  return (req) => {
    const url = req.url ?? '/';
    const raw = req.headers.host;
    if (!raw) return url;
    const host = stripPort(raw);
    if (host === apiHost || !host.endsWith(suffix)) return url;
    const appName = host.slice(0, -suffix.length);
    if (appName.length > MAX_APP_NAME || !APP_NAME_PATTERN.test(appName)) return url;
    return `/serverless/${appName}${url.startsWith('/') ? url : `/${url}`}`;
  };
}
