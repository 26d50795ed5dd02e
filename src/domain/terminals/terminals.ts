// The web terminal of a running GPU instance (issue 31): where GET /gpu/instance says it is
// (connectComponentWebTerminal.url, with a ticket: tickets.ts), and what a connect checks
// before the driver opens a shell: the ticket, a place among the terminals open at once (per
// instance and per team), then, as of now, the caller's key (not revoked, its member not
// disabled, its team not suspended), its role (one that may operate instances), the instance
// (still the team's, running) and a driver that has terminals. An open terminal is a live
// session (domain/live-sessions): it is closed once a change takes any of that away. The
// WebSocket and its bytes are the HTTP layer's (http/terminal-socket.ts).
import type { ComputeDriver, TerminalSession, TerminalSize } from '../../drivers/types.ts';
import { TerminalUnavailable } from '../../drivers/types.ts';
import type { InstanceRow } from '../../store/compute.ts';
import type { Compute } from '../compute/compute.ts';
import { requireInstance } from '../compute/instances.ts';
import { keyRefused } from '../keys/errors.ts';
import type { KeyAuthenticator } from '../keys/authenticator.ts';
import type { LiveSession, LiveSessions, SessionSpec } from '../live-sessions/live-sessions.ts';
import { can, type Principal } from '../roles.ts';
import { terminalForbidden, terminalUnavailable } from './errors.ts';
import type { TerminalTickets, TicketClaim } from './tickets.ts';

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
  /** the live sessions of this replica: terminals are closed when their caller loses the right to them */
  sessions: LiveSessions;
  /** terminals open at once on this replica, per instance and per team (GANTRY_TERMINALS_PER_INSTANCE, GANTRY_TERMINALS_PER_TEAM) */
  maxOpen: TerminalCaps;
}

export interface TerminalCaps {
  perInstance: number;
  perTeam: number;
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
  /** its registration among the live sessions: ended when its caller loses the right, released when it closes */
  live: LiveSession;
}

/**
 * Redeems the ticket and opens a shell in its instance, once every check holds now. The
 * terminal is registered (and its places taken) before the caller is read, so a change that
 * commits while the checks run is seen by them or closes the terminal.
 */
export async function openInstanceTerminal(t: Terminals, ticket: string, size: TerminalSize): Promise<OpenedTerminal> {
  const claim = await t.tickets.redeem(ticket);
  const live = t.sessions.start(terminalSession(t, claim));
  try {
    const principal = await t.keys.current(claim.keyId); // the same checks as a call with the key, uncached
    // the key is now another member's or team's: it is not the caller the ticket was given to
    if (principal.teamId !== claim.teamId || principal.memberId !== claim.memberId) throw keyRefused('the API key is invalid or has been revoked');
    mayOperate(principal);
    return { session: await openShell(t, claim, size), instanceId: claim.instanceId, principal, live };
  } catch (err) {
    live.release();
    throw err;
  }
}

function mayOperate(p: Principal): void {
  if (!can(p.role, CAPABILITY)) throw terminalForbidden(p.role);
}

/** The live session a terminal is: its caller, its places (the instance's, the team's), its role rule. */
function terminalSession(t: Terminals, c: TicketClaim): SessionSpec {
  const { perInstance, perTeam } = t.maxOpen;
  return {
    owner: { teamId: c.teamId, memberId: c.memberId, keyId: c.keyId },
    mayKeep: mayOperate,
    limits: [
      { subject: `terminal:instance:${c.instanceId}`, max: perInstance, rule: 'terminals_per_instance',
        message: `instance ${c.instanceId} has ${perInstance} terminals open, the most it may have at once: close one first` },
      { subject: `terminal:team:${c.teamId}`, max: perTeam, rule: 'terminals_per_team',
        message: `your team has ${perTeam} terminals open, the most it may have at once: close one first` },
    ],
  };
}

/** The instance, still the team's and running, and a shell in it. */
async function openShell(t: Terminals, c: TicketClaim, size: TerminalSize): Promise<TerminalSession> {
  const row = await requireInstance(t.compute, c.teamId, c.instanceId);
  const meta = { field: 'instanceId', instanceId: row.id, state: row.status };
  if (row.status !== 'running') throw terminalUnavailable(`instance ${row.id} is ${row.status}: a terminal opens on a running instance`, { ...meta, rule: 'running' });
  const driver = t.compute.driver;
  if (!driver.terminal) throw terminalUnavailable('this Gantry\'s compute driver has no terminals', { ...meta, rule: 'a driver with terminals (docker)' });
  try {
    return await driver.terminal(row.id, size);
  } catch (err) {
    if (err instanceof TerminalUnavailable) throw terminalUnavailable(`instance ${row.id} has no terminal now: ${err.message}`, { ...meta, rule: 'running' });
    throw err;
  }
}
