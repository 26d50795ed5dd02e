// Terminal tickets: a browser cannot set Authorization on a WebSocket, so the terminal's URL
// (connectComponentWebTerminal.url, given by GET /gpu/instance) carries a ticket standing for
// the call that got it: `t1.<payload>.<HMAC-SHA256>` (base64url), the payload naming the
// instance, the team, the member and the key (or the console session's key) of that call,
// when it expires and a nonce. The HMAC key is derived from the secret key that seals secrets
// at rest (GANTRY_SECRET_KEY), so every replica signs and verifies alike and no second secret
// is configured. A ticket is used once: a replica remembers the nonces it took until they
// expire (another replica would take a copy once more within the ticket's minutes; the
// connect checks below hold all the same). What a ticket proves is only who asked, and when:
// the connect checks again that the caller may, now (domain/terminals/terminals.ts).
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
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
  private readonly hmacKey: Buffer;
  private readonly nowMs: () => number;
  readonly ttlMs: number;
  /** nonces taken, with when their ticket expires */
  private readonly used = new Map<string, number>();

  constructor(secretKey: Buffer, nowMs: () => number, ttlMs: number) {
    this.hmacKey = Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'gantry terminal tickets v1', 32));
    this.nowMs = nowMs;
    this.ttlMs = ttlMs;
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.hmacKey).update(payload).digest('base64url');
  }

  issue(c: TicketClaim): string {
    const p: Payload = { i: c.instanceId, t: c.teamId, m: c.memberId, k: c.keyId, e: this.nowMs() + this.ttlMs, n: randomBytes(12).toString('base64url') };
    const payload = Buffer.from(JSON.stringify(p)).toString('base64url');
    return `t1.${payload}.${this.sign(`t1.${payload}`)}`;
  }

  /** The claim of a ticket signed here, in time and not used before; it is used from now on. */
  redeem(ticket: string): TicketClaim {
    const [v, payload, sig] = ticket.split('.');
    if (v !== 't1' || !payload || !sig || ticket.split('.').length !== 3) throw ticketRefused('not a terminal ticket');
    const expected = Buffer.from(this.sign(`t1.${payload}`));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw ticketRefused('the terminal ticket was not signed by this Gantry');
    const p = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Payload;
    const now = this.nowMs();
    if (!(p.e > now)) throw ticketRefused('the terminal ticket has expired: read the instance again (GET /gpu/instance) for a new one');
    for (const [n, e] of this.used) if (e <= now) this.used.delete(n);
    if (this.used.has(p.n)) throw ticketRefused('the terminal ticket was used already: read the instance again (GET /gpu/instance) for a new one');
    this.used.set(p.n, p.e);
    return { instanceId: p.i, teamId: p.t, memberId: p.m, keyId: p.k };
  }
}
