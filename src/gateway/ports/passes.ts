// Port passes: a browser following an "Open" link cannot send Authorization, and the console's
// session cookie lives on the API's host only (SameSite=Strict, host-only). So an address given
// to a caller (connectComponentJupyter.address, the console's links) carries a one-time ticket
// (`?gantry_ticket=`) that the proxy exchanges for a cookie scoped to that one port: host-only
// on `{instance}-{port}.{domain}`, `Path=/ports/{instance}/{port}` on the path form. Both are
// `p1.<payload>.<HMAC-SHA256>` (base64url) naming the instance, the port, the team, the member
// and the key of the call that got the address, an expiry and, for a ticket, a nonce taken
// once (domain/single-use.ts: across replicas through Redis when configured, else per replica). The HMAC key is derived from the sealing key (GANTRY_SECRET_KEY), so every
// replica signs and verifies alike. What a pass proves is who asked, and when: each request
// checks the key as of now (access.ts).
import { randomBytes } from 'node:crypto';
import { SignedTokens } from '../../lib/signed-tokens.ts';
import type { SingleUse } from '../../domain/single-use.ts';
import { passRefused } from './errors.ts';

export interface PassClaim {
  instanceId: string;
  port: number;
  teamId: string;
  memberId: string;
  keyId: string;
}

interface Payload {
  /** `t` a one-time ticket, `c` a cookie */
  u: 't' | 'c';
  i: string;
  p: number;
  t: string;
  m: string;
  k: string;
  /** expires at (ms) */
  e: number;
  n?: string;
}

/** A ticket on a link is good for this long: the link is followed at once, or read again. */
export const TICKET_TTL_MS = 5 * 60_000;
/** A port's cookie, once exchanged: a working day; the key is checked at every request all the same. */
export const COOKIE_TTL_MS = 12 * 3600_000;

export class PortPasses {
  private readonly tokens: SignedTokens;
  private readonly nowMs: () => number;
  private readonly used: Pick<SingleUse, 'take'>;

  constructor(secretKey: Buffer, nowMs: () => number, used: Pick<SingleUse, 'take'>) {
    this.tokens = new SignedTokens(secretKey, 'gantry port passes v1', 'p1');
    this.nowMs = nowMs;
    this.used = used;
  }

  ticket(c: PassClaim): string {
    return this.sign({ u: 't', ...short(c), e: this.nowMs() + TICKET_TTL_MS, n: randomBytes(12).toString('base64url') });
  }

  cookie(c: PassClaim): string {
    return this.sign({ u: 'c', ...short(c), e: this.nowMs() + COOKIE_TTL_MS });
  }

  /** The claim of a ticket for this port, in time and not used before; it is used from now on. */
  async redeemTicket(pass: string, instanceId: string, port: number): Promise<PassClaim> {
    const p = this.verify(pass, 't', instanceId, port);
    if (!p.n || !(await this.used.take(p.n, p.e, this.nowMs()))) throw passRefused('ticket', 'the link\'s ticket was used already: read the instance again for a new link');
    return claimOf(p);
  }

  /** The claim of a port's cookie, for this port and in time. */
  readCookie(pass: string, instanceId: string, port: number): PassClaim {
    return claimOf(this.verify(pass, 'c', instanceId, port));
  }

  private sign(p: Payload): string {
    return this.tokens.sign(p);
  }

  private verify(pass: string, use: Payload['u'], instanceId: string, port: number): Payload {
    const field = use === 't' ? 'ticket' : 'cookie';
    const opened = this.tokens.open<Payload>(pass);
    if (!opened.ok) throw passRefused(field, opened.why === 'malformed' ? `not a port ${field} of this Gantry` : `the port ${field} was not signed by this Gantry`);
    const p = opened.payload;
    // a pass of another port (or a cookie shown as a ticket) opens nothing here
    if (p.u !== use || p.i !== instanceId || p.p !== port) throw passRefused(field, `the port ${field} is for another port`);
    if (!(p.e > this.nowMs())) throw passRefused(field, `the port ${field} has expired: open the port from the console or read the instance again`);
    return p;
  }
}

function short(c: PassClaim): Pick<Payload, 'i' | 'p' | 't' | 'm' | 'k'> {
  return { i: c.instanceId, p: c.port, t: c.teamId, m: c.memberId, k: c.keyId };
}

function claimOf(p: Payload): PassClaim {
  return { instanceId: p.i, port: p.p, teamId: p.t, memberId: p.m, keyId: p.k };
}
