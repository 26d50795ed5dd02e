// An instance's HTTP ports through Gantry (issue 42): where each is reachable (its address,
// host- or path-based), who may reach it and how (an API key of the team, or a port cookie
// got for a ticket of a link: passes.ts), and where the proxy finds it (the driver's endpoint
// the reconciler recorded: docker the published host port, kubernetes the Service). The
// bytes are proxy.ts's; the route is http/routes/ports/proxy.ts.
import type { Compute } from '../../domain/compute/compute.ts';
import { portEndpoint } from '../../domain/compute/instance-view.ts';
import type { KeyAuthenticator } from '../../domain/keys/authenticator.ts';
import { InstanceRoutes, type InstanceRoute } from '../../domain/compute/instance-routes.ts';
import type { AuthThrottle } from '../../domain/auth-throttle.ts';
import type { SingleUse } from '../../domain/single-use.ts';
import { can, type Principal } from '../../domain/roles.ts';
import { loadSecretKey } from '../../lib/secret-box.ts';
import type { InstanceRow } from '../../store/compute.ts';
import type { Config } from '../../config.ts';
import { noCredential, passRefused, portDown, portForbidden, portNotFound } from './errors.ts';
import { PortPasses, type PassClaim } from './passes.ts';

export const PORTS_PREFIX = '/ports';
export const TICKET_PARAM = 'gantry_ticket';
export const PORT_COOKIE = 'gantry_port';
/** the roles that may reach a port: those that operate instances (a Jupyter is a shell) */
const CAPABILITY = 'changeCompute';

/** The ports' context: the instances, the key check and its throttle, the passes, where addresses point. */
export interface Ports {
  compute: Compute;
  keys: KeyAuthenticator;
  /** failed sign-ins (a wrong key, a forged or spent ticket or cookie) counted as every API's are */
  authThrottle: AuthThrottle;
  /** what a call is routed by, per instance, cached (instance.changed drops an entry) */
  routes: InstanceRoutes;
  passes: PortPasses;
  /** Gantry's public URL (GANTRY_PUBLIC_URL), read at each address: a server on port 0 learns it once listening */
  baseUrl: () => string;
  /** GANTRY_PORTS_DOMAIN */
  domain: string | undefined;
}

/** The ports area's context from the graph (src/areas.ts). */
export function portsContext(s: { compute: Compute; keys: KeyAuthenticator; authThrottle: AuthThrottle; singleUse: SingleUse; config: Config }): Ports {
  const { config } = s;
  return {
    compute: s.compute, keys: s.keys, authThrottle: s.authThrottle, domain: config.ports.domain, baseUrl: () => config.serverless.publicBaseUrl,
    routes: new InstanceRoutes(s.compute.ctx, config.keyCacheTtlMs),
    passes: new PortPasses(loadSecretKey(config.secretKey, config.dataDir), () => s.compute.ctx.clock.nowMs(), s.singleUse),
  };
}

/** The DNS label of a port's host: `ins_abc` port 8888 → `ins-abc-8888` (an id's `_` is no hostname character). */
export function hostLabel(instanceId: string, port: number): string {
  return `${instanceId.replace('_', '-')}-${port}`;
}

/** The instance and port a host label names, or undefined. */
export function parseHostLabel(label: string): { instanceId: string; port: number } | undefined {
  const m = /^([a-z]+)-([0-9a-z]{22})-(\d{1,5})$/.exec(label);
  if (!m) return undefined;
  const port = Number(m[3]);
  return port >= 1 && port <= 65535 ? { instanceId: `${m[1]}_${m[2]}`, port } : undefined;
}

/** A port's address: `{scheme}://{label}.{domain}/` with GANTRY_PORTS_DOMAIN, else `{base}/ports/{id}/{port}/`. */
export function portAddress(p: Pick<Ports, 'baseUrl' | 'domain'>, instanceId: string, port: number): string {
  const base = p.baseUrl().replace(/\/+$/, '');
  if (!p.domain) return `${base}${PORTS_PREFIX}/${instanceId}/${port}/`;
  return `${new URL(base).protocol}//${hostLabel(instanceId, port)}.${p.domain}/`;
}

/** Whether the caller may reach the instance's ports (its role operates instances, the instance is its team's). */
export function mayReach(p: Principal, row: Pick<InstanceRow, 'teamId'>): boolean {
  return can(p.role, CAPABILITY) && row.teamId === p.teamId;
}

/** A link a browser can open: the port's address with a one-time ticket of this caller's. */
export function portLink(ports: Ports, p: Principal, row: Pick<InstanceRow, 'id' | 'teamId'>, port: number): string {
  const ticket = ports.passes.ticket({ instanceId: row.id, port, teamId: p.teamId, memberId: p.memberId, keyId: p.keyId });
  return `${portAddress(ports, row.id, port)}?${TICKET_PARAM}=${ticket}`;
}

/** The links of the instance's http ports for this caller (port → link), while it runs and the caller may reach them. */
export function portLinks(ports: Ports, p: Principal, row: Pick<InstanceRow, 'id' | 'teamId' | 'status' | 'ports'>): Map<number, string> {
  const out = new Map<number, string>();
  if (row.status !== 'running' || !mayReach(p, row)) return out;
  for (const x of row.ports) if (x.type === 'http') out.set(x.port, portLink(ports, p, row, x.port));
  return out;
}

/** How a call to a port presents who it is. */
export interface PortCredentials {
  authorization: string | undefined;
  ticket: string | undefined;
  /** the values of every `gantry_port` cookie it sent */
  cookies: string[];
}

/** Who calls, and whether a ticket was exchanged (the answer then sets the port's cookie). */
export interface PortCaller {
  principal: Principal;
  /** set when a ticket was redeemed: the cookie's value to set */
  newCookie?: string;
}

/**
 * The caller, by an API key (Authorization), else a ticket, else a port cookie; each checked as
 * of now, under the auth throttle (`address`: the client's, read only on a failure or a
 * lockout). Synchronous for a cached key and no lockout (the hot path).
 */
export function portCaller(ports: Ports, c: PortCredentials, instanceId: string, port: number, address: () => string): PortCaller | Promise<PortCaller> {
  if (c.authorization) {
    const key = c.authorization;
    return ports.authThrottle.attempt(address, key, () => callerOf(ports.keys.authenticate(key)));
  }
  // no credential is no guess: not counted
  if (!c.ticket && !c.cookies.length) throw noCredential();
  // a ticket or cookie is Gantry's own pass, no key's prefix: it counts against the address only
  return ports.authThrottle.attempt(address, undefined, () => passCaller(ports, c, instanceId, port));
}

function callerOf(p: Principal | Promise<Principal>): PortCaller | Promise<PortCaller> {
  return p instanceof Promise ? p.then((principal) => ({ principal })) : { principal: p };
}

async function passCaller(ports: Ports, c: PortCredentials, instanceId: string, port: number): Promise<PortCaller> {
  if (c.ticket) {
    const claim = await ports.passes.redeemTicket(c.ticket, instanceId, port);
    return { principal: await claimant(ports, claim), newCookie: ports.passes.cookie(claim) };
  }
  let refusal: unknown = noCredential();
  for (const value of c.cookies) {
    try {
      return { principal: await claimant(ports, ports.passes.readCookie(value, instanceId, port)) };
    } catch (e) {
      refusal = e; // another port's cookie of the same name (a wider Path): try the next
    }
  }
  throw refusal;
}

/**
 * The key a pass was given to, as a call with that key would be answered now (the key cache,
 * dropped by every key, member and team change); refused if it is now another member's or team's.
 */
async function claimant(ports: Ports, claim: PassClaim): Promise<Principal> {
  const p = await ports.keys.authenticateKeyId(claim.keyId);
  if (p.teamId !== claim.teamId || p.memberId !== claim.memberId) throw passRefused('cookie', 'the API key the pass was given to is now another member\'s');
  return p;
}

/** Where the proxy reaches `port` of the caller's instance: its recorded endpoint (`host:port`); synchronous while the instance is cached. */
export function portTarget(ports: Ports, p: Principal, instanceId: string, port: number): string | Promise<string> {
  if (!can(p.role, CAPABILITY)) throw portForbidden(p.role);
  const route = ports.routes.get(instanceId);
  return route instanceof Promise ? route.then((r) => endpointOf(r, p, instanceId, port)) : endpointOf(route, p, instanceId, port);
}

function endpointOf(row: InstanceRoute | null, p: Principal, instanceId: string, port: number): string {
  if (!row || row.teamId !== p.teamId) throw portNotFound(instanceId, port, '');
  const declared = row.ports.find((x) => x.port === port);
  if (!declared) throw portNotFound(instanceId, port, 'it is not one of the instance\'s ports');
  if (declared.type !== 'http') throw portNotFound(instanceId, port, `it is a ${declared.type} port: only http ports are proxied`);
  const meta = { field: 'instanceId', instanceId, port, state: row.status };
  if (row.status !== 'running') throw portDown(`instance ${instanceId} is ${row.status}: its ports answer while it runs`, { ...meta, rule: 'running' });
  const endpoint = portEndpoint(row, port);
  if (!endpoint) throw portDown(`port ${port} of instance ${instanceId} has no endpoint yet: try again in a few seconds`, { ...meta, rule: 'an endpoint recorded by the driver' });
  return endpoint;
}
