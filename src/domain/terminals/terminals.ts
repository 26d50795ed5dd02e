// The web terminal of a running GPU instance (issue 31): where GET /gpu/instance says it is
// (connectComponentWebTerminal.url, with a ticket: tickets.ts), and what a connect checks
// before the driver opens a shell: the ticket, then, as of now, the caller's key (not revoked,
// its member not disabled, its team not suspended), its role (one that may operate
// instances), the instance (still the team's, running) and a driver that has terminals. The
// WebSocket and its bytes are the HTTP layer's (http/terminal-socket.ts).
import type { ComputeDriver, TerminalSession, TerminalSize } from '../../drivers/types.ts';
import { TerminalUnavailable } from '../../drivers/types.ts';
import { findKey } from '../../store/accounts.ts';
import type { InstanceRow } from '../../store/compute.ts';
import type { Compute } from '../compute/compute.ts';
import { requireInstance } from '../compute/instances.ts';
import { keyRefused } from '../keys/errors.ts';
import type { KeyAuthenticator } from '../keys/authenticator.ts';
import { can, type Principal } from '../roles.ts';
import { terminalForbidden, terminalUnavailable } from './errors.ts';
import type { TerminalTickets } from './tickets.ts';

export const TERMINAL_PATH = '/gpu-instance/openapi/v1/gpu/instance/terminal';
/** the role rule of the terminal: the roles that may start and stop instances */
const CAPABILITY = 'changeCompute';

/** The terminals' context: compute (the driver, the instances), the key check, the tickets, the URL base. */
export interface Terminals {
  compute: Compute;
  keys: KeyAuthenticator;
  tickets: TerminalTickets;
  /** Gantry's public URL (GANTRY_PUBLIC_URL), read at each URL: a server on port 0 learns it once listening */
  baseUrl: () => string;
  /** how long a terminal may stay without a byte either way, and at most (ms) */
  limits: { idleMs: number; lifetimeMs: number };
}

export const DEFAULT_TERMINAL_LIMITS = { idleMs: 15 * 60_000, lifetimeMs: 8 * 3600_000 };
export const TERMINAL_TICKET_TTL_MS = 3 * 60_000;

/** Whether the driver can open terminals at all. */
export function hasTerminals(driver: ComputeDriver): boolean {
  return typeof driver.terminal === 'function';
}

/**
 * connectComponentWebTerminal.url of the instance for this caller: a ws(s):// URL with a new
 * ticket while the instance runs, the driver has terminals and the caller's role may operate
 * instances; '' otherwise.
 */
export function terminalUrl(t: Terminals, p: Principal, row: Pick<InstanceRow, 'id' | 'teamId' | 'status'>): string {
  if (row.status !== 'running' || !hasTerminals(t.compute.driver) || !can(p.role, CAPABILITY) || row.teamId !== p.teamId) return '';
  const ticket = t.tickets.issue({ instanceId: row.id, teamId: p.teamId, memberId: p.memberId, keyId: p.keyId });
  return `${t.baseUrl().replace(/\/+$/, '').replace(/^http/, 'ws')}${TERMINAL_PATH}?ticket=${ticket}`;
}

export interface OpenedTerminal {
  session: TerminalSession;
  instanceId: string;
  principal: Principal;
}

/** Redeems the ticket and opens a shell in its instance, once every check holds now. */
export async function openInstanceTerminal(t: Terminals, ticket: string, size: TerminalSize): Promise<OpenedTerminal> {
  const claim = t.tickets.redeem(ticket);
  const principal = await currentCaller(t, claim.keyId);
  // the key is now another member's or team's: it is not the caller the ticket was given to
  if (principal.teamId !== claim.teamId || principal.memberId !== claim.memberId) throw keyRefused('the API key is invalid or has been revoked');
  if (!can(principal.role, CAPABILITY)) throw terminalForbidden(principal.role);
  const row = await requireInstance(t.compute, claim.teamId, claim.instanceId);
  const meta = { field: 'instanceId', instanceId: row.id, state: row.status };
  if (row.status !== 'running') throw terminalUnavailable(`instance ${row.id} is ${row.status}: a terminal opens on a running instance`, { ...meta, rule: 'running' });
  const driver = t.compute.driver;
  if (!driver.terminal) throw terminalUnavailable('this Gantry\'s compute driver has no terminals', { ...meta, rule: 'a driver with terminals (docker)' });
  try {
    return { session: await driver.terminal(row.id, size), instanceId: row.id, principal };
  } catch (err) {
    if (err instanceof TerminalUnavailable) throw terminalUnavailable(`instance ${row.id} has no terminal now: ${err.message}`, { ...meta, rule: 'running' });
    throw err;
  }
}

/** Who the ticket's key is now: the same checks as a call with the key (KeyAuthenticator). */
async function currentCaller(t: Terminals, keyId: string): Promise<Principal> {
  const key = await findKey(t.compute.ctx.db, keyId);
  if (!key) throw keyRefused('the API key is invalid or has been revoked');
  return t.keys.authenticateHash(key.secretHash);
}
