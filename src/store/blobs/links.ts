// Signed blob links: `{publicBaseUrl}/blobs/{key}?expires={unix s}&signature={HMAC}`,
// served by Gantry's own route (http/routes/blobs) for every blob store, S3 included (see
// docs/compat-decisions.md). The HMAC key is derived from the secret key that seals secrets
// at rest, so every replica signs and verifies alike and no second secret is configured.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { checkKey } from './types.ts';

export type LinkCheck = 'ok' | 'expired' | 'invalid';

export class BlobLinks {
  private readonly hmacKey: Buffer;
  private readonly baseUrl: () => string;
  private readonly nowMs: () => number;

  /** `baseUrl` is read at each link: a server started on port 0 learns its address only once listening. */
  constructor(secretKey: Buffer, baseUrl: string | (() => string), nowMs: () => number) {
    this.hmacKey = Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'gantry blob links v1', 32));
    this.baseUrl = typeof baseUrl === 'string' ? () => baseUrl : baseUrl;
    this.nowMs = nowMs;
  }

  private sign(key: string, expiresS: number): string {
    return createHmac('sha256', this.hmacKey).update(`${key}\n${expiresS}`).digest('base64url');
  }

  /** A URL that serves `key` until `ttlS` seconds from now. */
  url(key: string, ttlS: number): string {
    const expires = Math.floor(this.nowMs() / 1000) + Math.max(1, Math.ceil(ttlS));
    return `${this.baseUrl().replace(/\/+$/, '')}/blobs/${checkKey(key)}?expires=${expires}&signature=${this.sign(key, expires)}`;
  }

  /** Whether a link's parts were signed here and are still in time (the signature is checked first). */
  check(key: string, expires: string, signature: string): LinkCheck {
    if (!/^\d{1,15}$/.test(expires)) return 'invalid';
    const expected = Buffer.from(this.sign(key, Number(expires)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) * 1000 > this.nowMs() ? 'ok' : 'expired';
  }
}
