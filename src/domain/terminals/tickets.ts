// Terminal tickets: a browser cannot set Authorization on a WebSocket, so the terminal's URL
// (connectComponentWebTerminal.url, given by GET /gpu/instance) carries a ticket standing for
// the call that got it: `t1.<payload>.<HMAC-SHA256>` (base64url), the payload naming the
// instance, the team, the member and the key (or the console session's key) of that call,
// when it expires and a nonce. The HMAC key is derived from the secret key that seals secrets
// at rest (GANTRY_SECRET_KEY), so every replica signs and verifies alike and no second secret
// is configured. A ticket is used once: its nonce is taken until it expires, across the
// replicas through Redis when configured, per replica without it or while Redis is away
// (domain/single-use.ts; the connect checks below hold all the same). What a ticket proves is only who asked, and when:
// the connect checks again that the caller may, now (domain/terminals/terminals.ts).
import { randomBytes } from 'node:crypto';
import { SignedTokens } from '../../lib/signed-tokens.ts';
import type { SingleUse } from '../single-use.ts';
import { ticketRefused } from './errors.ts';

export interface TicketClaim {
  instanceId: string;
  teamId: string;
  memberId: string;
  keyId: string;
}

interface Payload {
  i: string;
  t: string;
  m: string;
  k: string;
  /** expires at (ms) */
  e: number;
  n: string;
}

export class TerminalTickets {
  private readonly tokens: SignedTokens;
  private readonly nowMs: () => number;
  readonly ttlMs: number;
  /** taken once across replicas when Redis is configured, else per replica (domain/single-use.ts) */
  private readonly used: Pick<SingleUse, 'take'>;

  constructor(secretKey: Buffer, nowMs: () => number, ttlMs: number, used: Pick<SingleUse, 'take'>) {
    this.tokens = new SignedTokens(secretKey, 'gantry terminal tickets v1', 't1');
    this.nowMs = nowMs;
    this.ttlMs = ttlMs;
    this.used = used;
  }

  issue(c: TicketClaim): string {
    const p: Payload = { i: c.instanceId, t: c.teamId, m: c.memberId, k: c.keyId, e: this.nowMs() + this.ttlMs, n: randomBytes(12).toString('base64url') };
    return this.tokens.sign(p);
  }

  /** The claim of a ticket signed here, in time and not used before; it is used from now on. */
  async redeem(ticket: string): Promise<TicketClaim> {
    const opened = this.tokens.open<Payload>(ticket);
    if (!opened.ok) throw ticketRefused(opened.why === 'malformed' ? 'not a terminal ticket' : 'the terminal ticket was not signed by this Gantry');
    const p = opened.payload;
    const now = this.nowMs();
    if (!(p.e > now)) throw ticketRefused('the terminal ticket has expired: read the instance again (GET /gpu/instance) for a new one');
    if (!(await this.used.take(p.n, p.e, now))) throw ticketRefused('the terminal ticket was used already: read the instance again (GET /gpu/instance) for a new one');
    return { instanceId: p.i, teamId: p.t, memberId: p.m, keyId: p.k };
  }
}
