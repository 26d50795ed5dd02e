// Host-based port addresses (GANTRY_PORTS_DOMAIN): a request for `{instance}-{port}.{domain}`
// is routed as `/ports/{instance}/{port}{path}`, so one route serves both address forms. The
// API's own host is never rewritten, even when it lies under the domain.
import type { IncomingMessage } from 'node:http';
import { parseHostLabel, PORTS_PREFIX } from '../gateway/ports/ports.ts';

const stripPort = (host: string) => host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');

/** The instance and port a request's Host names under the domain, or undefined. */
export function portOfHost(domain: string, apiHost: string, raw: string | undefined): { instanceId: string; port: number } | undefined {
  if (!raw) return undefined;
  const host = stripPort(raw);
  const suffix = `.${stripPort(domain)}`;
  if (host === apiHost || !host.endsWith(suffix)) return undefined;
  return parseHostLabel(host.slice(0, -suffix.length));
}

/** Fastify's `rewriteUrl` for the ports domain, or undefined when it is not set. */
export function portsHostRewrite(domain: string | undefined, publicBaseUrl: string): ((req: IncomingMessage) => string) | undefined {
  if (!domain) return undefined;
  const apiHost = stripPort(new URL(publicBaseUrl).host);
  return (req) => {
    const url = req.url ?? '/';
    const at = portOfHost(domain, apiHost, req.headers.host);
    if (!at) return url;
    return `${PORTS_PREFIX}/${at.instanceId}/${at.port}${url.startsWith('/') ? url : `/${url}`}`;
  };
}
