// Password hashes: scrypt from node:crypto (memory-hard: N·r·128 bytes = 32 MiB a hash at the
// defaults), in a self-describing format so the parameters can change later without
// invalidating what is stored: `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (salt 16 random bytes,
// hash 32 bytes, both base64 without padding; the shape of the PHC string format). A hash made
// with other parameters than today's still verifies, and `needsRehash` says it should be
// replaced at the next successful sign-in. Measured in docs/security.md ("Passwords").
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptParams {
  /** log2 of the CPU/memory cost N */
  ln: number;
  r: number;
  p: number;
}

/** Today's parameters: N = 2^15, r = 8, p = 1 (OWASP's scrypt minimum is N = 2^17 with r=8 p=1 or its equivalents; 2^15 at r=8 is 32 MiB, ~77 ms a hash on this project's 2-core machine: docs/security.md). */
export const SCRYPT_DEFAULTS: ScryptParams = { ln: 15, r: 8, p: 1 };

const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** The longest password hashed: longer ones are refused by the routes before they get here (scrypt's cost does not grow with it, but the body would). */
export const MAX_PASSWORD_LENGTH = 1024;

function scrypt(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.ln;
  // maxmem: scrypt refuses (by default above 32 MiB) what needs more than 128·N·r bytes; leave room
  const options: ScryptOptions = { N, r: params.r, p: params.p, maxmem: 256 * N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scryptCb(password.normalize('NFKC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** A new hash of `password` at `params` (today's by default), with a fresh salt. */
export async function hashPassword(password: string, params: ScryptParams = SCRYPT_DEFAULTS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, params);
  return `$scrypt$ln=${params.ln},r=${params.r},p=${params.p}$${salt.toString('base64').replace(/=+$/, '')}$${key.toString('base64').replace(/=+$/, '')}`;
}

interface Parsed {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{16,})\$([A-Za-z0-9+/]{32,})$/;

function parse(stored: string): Parsed | undefined {
  const m = FORMAT.exec(stored);
  if (!m) return undefined;
  const params = { ln: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  // bounds: a stored hash never makes a sign-in take more than a 1 GiB, p=16 computation
  if (params.ln < 10 || params.ln > 20 || params.r < 1 || params.r > 32 || params.p < 1 || params.p > 16) return undefined;
  return { params, salt: Buffer.from(m[4]!, 'base64'), key: Buffer.from(m[5]!, 'base64') };
}

/** Whether `password` is the one `stored` was made from (constant time in the comparison; false for a hash of an unknown format). */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const key = await scrypt(password, parsed.salt, parsed.params);
  return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
}

/** A stored hash made with parameters other than today's: replace it at the next successful sign-in. */
export function needsRehash(stored: string, params: ScryptParams = SCRYPT_DEFAULTS): boolean {
  const parsed = parse(stored);
  return !parsed || parsed.params.ln !== params.ln || parsed.params.r !== params.r || parsed.params.p !== params.p;
}

const dummies = new Map<string, Promise<string>>();

/**
 * A hash of no one's password at `params`, made once: a sign-in for an address without an
 * account verifies against it, so it costs what a real one costs and the answer's timing does
 * not tell whether the address has an account.
 */
export function dummyPasswordHash(params: ScryptParams = SCRYPT_DEFAULTS): Promise<string> {
  const key = `${params.ln},${params.r},${params.p}`;
  let dummy = dummies.get(key);
  if (!dummy) {
    dummy = hashPassword(randomBytes(24).toString('base64url'), params);
    dummies.set(key, dummy);
  }
  return dummy;
}
