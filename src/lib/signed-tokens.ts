// Tokens this Gantry signs and later reads back (the terminal's tickets, an instance port's
// tickets and cookies): `<version>.<payload>.<HMAC-SHA256>`, base64url, the payload JSON. The
// HMAC key is derived per purpose from the secret key that seals secrets at rest
// (GANTRY_SECRET_KEY), so every replica signs and verifies alike, no second secret is
// configured, and a token of one purpose never reads as another's.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export type Opened<T> = { ok: true; payload: T } | { ok: false; why: 'malformed' | 'forged' };

export class SignedTokens {
  private readonly hmacKey: Buffer;
  private readonly version: string;

  /** `purpose` names the HKDF key ('gantry terminal tickets v1'); `version` is the token's first part */
  constructor(secretKey: Buffer, purpose: string, version: string) {
    this.hmacKey = Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), purpose, 32));
    this.version = version;
  }

  sign(payload: object): string {
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${this.version}.${body}.${this.mac(`${this.version}.${body}`)}`;
  }

  /** The payload of a token signed here, or why not: not one of these tokens, or not signed by this key. */
  open<T>(token: string): Opened<T> {
    const parts = token.split('.');
    const [v, body, sig] = parts;
    if (parts.length !== 3 || v !== this.version || !body || !sig) return { ok: false, why: 'malformed' };
    const expected = Buffer.from(this.mac(`${v}.${body}`));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, why: 'forged' };
    return { ok: true, payload: JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T };
  }

  private mac(s: string): string {
    return createHmac('sha256', this.hmacKey).update(s).digest('base64url');
  }
}

/**
 * The nonces of single-use tokens this replica took, each until its token expires: what
 * domain/single-use.ts keeps on each replica beside the shared record (Redis), and alone
 * without one.
 */
export class TakenNonces {
  private readonly taken = new Map<string, number>();

  /** false if `nonce` was taken already; otherwise it is taken from now until `expiresAtMs` */
  take(nonce: string, expiresAtMs: number, nowMs: number): boolean {
    for (const [n, e] of this.taken) if (e <= nowMs) this.taken.delete(n);
    if (this.taken.has(nonce)) return false;
    this.taken.set(nonce, expiresAtMs);
    return true;
  }
}
