// The bytes of a call to an instance's port: passed to the port's endpoint and back as they
// come (undici; a body of any size streams through, never buffered), and a WebSocket (or any
// Upgrade) bridged socket to socket once the port answered 101. What passes each way is
// gateway/forwarding.ts's rule: the port's app receives no Gantry credential (Authorization,
// x-api-key, the CSRF token, Gantry's cookies: the console's and the port's own), nor the
// link's ticket (`gantry_ticket` is taken out of the query). Framework-free: the route
// (http/routes/ports/proxy.ts) hands the call in and writes the answer out.
import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex, Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { loadUndici, undiciLoaded } from '../../lib/undici.ts';
import { type CallOrigin, forwardedHeaders, hasBody, returnedHeaders } from '../forwarding.ts';
import { portDown } from './errors.ts';
import { PORTS_PREFIX, TICKET_PARAM } from './ports.ts';

/** A call to a port, as the HTTP layer received it. */
export interface PortCall extends CallOrigin {
  instanceId: string;
  port: number;
  method: string;
  /** the URL as routed: `/ports/{instanceId}/{port}/…` (the host form rewritten to it) */
  url: string;
  body: Readable;
  /** called at `{instance}-{port}.{domain}`: an origin apart from the console's */
  hostForm: boolean;
}

export interface PortAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Readable;
}

/** The path the port's app sees: the prefix removed (`/ports/i/8888/x?y` → `/x?y`), the ticket taken out of the query. */
export function pathAtPort(call: Pick<PortCall, 'url' | 'instanceId' | 'port'>): string {
  const prefix = `${PORTS_PREFIX}/${call.instanceId}/${call.port}`;
  const rest = call.url.startsWith(prefix) ? call.url.slice(prefix.length) : '/';
  return withoutTicket(rest.startsWith('/') ? rest : `/${rest}`);
}

/** A URL without the link's ticket in its query (the rest of the query as it was). */
export function withoutTicket(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  if (!params.has(TICKET_PARAM)) return url;
  params.delete(TICKET_PARAM);
  const query = params.toString();
  return `${url.slice(0, q)}${query ? `?${query}` : ''}`;
}

/** The headers sent to the port: forwarding.ts's, plus the prefix the path form took off. */
function headersFor(call: PortCall): Record<string, string | string[]> {
  const headers = forwardedHeaders(call);
  if (!call.hostForm) headers['x-forwarded-prefix'] = `${PORTS_PREFIX}/${call.instanceId}/${call.port}`;
  return headers;
}

/** Pass the call to `endpoint` (`host:port`); `clientGone` aborts it. */
export async function callPort(endpoint: string, call: PortCall, clientGone: AbortSignal): Promise<PortAnswer> {
  const { request } = undiciLoaded() ?? await loadUndici();
  let res: Dispatcher.ResponseData;
  try {
    res = await request(`http://${endpoint}${pathAtPort(call)}`, {
      method: call.method as Dispatcher.HttpMethod, headers: headersFor(call), body: hasBody(call.method, call.headers) ? call.body : undefined,
      // a port may stream for as long as it likes (a notebook's kernel, a model's tokens): the client leaving ends it
      signal: clientGone, headersTimeout: 300_000, bodyTimeout: 0,
    });
  } catch (e) {
    throw unreachable(call, e);
  }
  return { status: res.statusCode, headers: returnedHeaders(res.headers, call.hostForm), body: res.body as unknown as Readable };
}

function unreachable(call: PortCall, e: unknown): Error {
  return portDown(`port ${call.port} of instance ${call.instanceId} did not answer: ${e instanceof Error ? e.message : String(e)}`,
    { field: 'port', instanceId: call.instanceId, port: call.port, rule: 'a port that answers' });
}

/**
 * An Upgrade (a WebSocket) to the port: the port's 101 is sent back (its headers filtered as an
 * answer's), then the two sockets are joined. A port that refuses the upgrade is an error the
 * route answers before anything was written to the client's socket.
 */
export async function upgradePort(endpoint: string, call: PortCall, client: { socket: Duplex; head: Buffer }): Promise<void> {
  const { upgrade } = undiciLoaded() ?? await loadUndici();
  let up: Dispatcher.UpgradeData;
  try {
    up = await upgrade(`http://${endpoint}${pathAtPort(call)}`, {
      method: 'GET', headers: headersFor(call), protocol: String(call.headers.upgrade ?? 'websocket'), headersTimeout: 30_000,
    } as Dispatcher.UpgradeOptions & { headersTimeout: number });
  } catch (e) {
    throw unreachable(call, e);
  }
  const headers = returnedHeaders(up.headers as IncomingHttpHeaders, call.hostForm);
  const lines = ['HTTP/1.1 101 Switching Protocols', 'Connection: Upgrade', `Upgrade: ${String(call.headers.upgrade ?? 'websocket')}`];
  for (const [k, v] of Object.entries(headers)) for (const one of [v].flat()) lines.push(`${k}: ${one}`);
  client.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  if (client.head.length) up.socket.write(client.head);
  const end = () => { client.socket.destroy(); up.socket.destroy(); };
  up.socket.on('error', end).on('close', end);
  client.socket.on('error', end).on('close', end);
  up.socket.pipe(client.socket);
  client.socket.pipe(up.socket);
}
