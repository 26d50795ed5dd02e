// One-time passwords for two-factor sign-in: HOTP (RFC 4226) and TOTP (RFC 6238) from
// node:crypto, the secret in base32 (RFC 4648) as authenticator apps take it, and the
// otpauth:// URI they scan. Tested against the RFCs' own vectors (src/lib/totp.test.ts).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export type TotpAlgorithm = 'sha1' | 'sha256' | 'sha512';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding (what authenticator apps show and take). */
export function base32Encode(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** RFC 4648 base32, any case, spaces and padding ignored; undefined when it is not base32. */
export function base32Decode(text: string): Buffer | undefined {
  const clean = text.replace(/[\s=]/g, '').toUpperCase();
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const c of clean) {
    const i = BASE32.indexOf(c);
    if (i < 0) return undefined;
    value = ((value << 5) | i) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 4226: the `digits`-digit code of `counter` (dynamic truncation of the HMAC). */
export function hotp(secret: Buffer, counter: number, digits = 6, algorithm: TotpAlgorithm = 'sha1'): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, secret).update(msg).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const code = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return String(code).padStart(digits, '0');
}

/** RFC 6238: the time step of `nowMs` (30 s steps from the Unix epoch by default). */
export function totpStep(nowMs: number, stepS = 30): number {
  return Math.floor(nowMs / 1000 / stepS);
}

/** RFC 6238: the code at `nowMs`. */
export function totp(secret: Buffer, nowMs: number, opts: { digits?: number; stepS?: number; algorithm?: TotpAlgorithm } = {}): string {
  return hotp(secret, totpStep(nowMs, opts.stepS), opts.digits ?? 6, opts.algorithm ?? 'sha1');
}

/**
 * The time step a presented code matches, within `window` steps either side of now (clocks
 * drift: one step, 30 s, by default), and after `afterStep` (a code is accepted once: the
 * caller keeps the step it last accepted); undefined when it matches none.
 */
export function matchTotp(secret: Buffer, code: string, nowMs: number, opts: { window?: number; afterStep?: number } = {}): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const now = totpStep(nowMs);
  const window = opts.window ?? 1;
  let matched: number | undefined;
  for (let step = now - window; step <= now + window; step++) {
    // every candidate is compared (no early exit): the time taken does not say which matched
    const same = timingSafeEqual(Buffer.from(hotp(secret, step)), Buffer.from(code));
    if (same && step > (opts.afterStep ?? -1) && matched === undefined) matched = step;
  }
  return matched;
}

/** A new TOTP secret: 20 random bytes (160 bits, RFC 4226's recommended length). */
export function newTotpSecret(): Buffer {
  return randomBytes(20);
}

/** The otpauth:// URI an authenticator app scans (Google Authenticator's Key Uri Format). */
export function otpauthUri(secret: Buffer, issuer: string, account: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  return `otpauth://totp/${label}?secret=${base32Encode(secret)}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=6&period=30`;
}
