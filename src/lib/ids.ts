import { randomBytes, createHash } from 'node:crypto';

// One registry of prefixes so an id tells what it names.
export const ID_PREFIX = {
  team: 'usr',
  member: 'mem',
  key: 'key',
  ledger: 'led',
  event: 'evt',
  model: 'mdl',
  template: 'tpl',
  instance: 'ins',
  product: 'prd',
  cluster: 'cls',
  request: 'req',
  voucher: 'vch',
  bill: 'bil',
  auth: 'rga',
  networkStorage: 'nst',
} as const;
export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

function encodeTime(ms: number): string {
  let out = '';
  let n = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}

function encodeRandom(bytes: number): string {
  const buf = randomBytes(bytes);
  let out = '';
  for (const b of buf) out += ALPHABET[b % 32];
  return out;
}

/** Prefixed, time-sortable id: `<prefix>_<10 chars time><12 chars random>`. */
export function newId(kind: IdKind, nowMs: number = Date.now()): string {
  return `${ID_PREFIX[kind]}_${encodeTime(nowMs)}${encodeRandom(12)}`;
}

/** API key secret: `sk_` + 32 random bytes, base64url. */
export function newApiKeySecret(): string {
  return 'sk_' + randomBytes(32).toString('base64url');
}

export function newOperatorToken(): string {
  return 'gop_' + randomBytes(32).toString('base64url');
}

export function sha256Hex(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** Short display form of a secret: first 7 and last 4 characters. */
export function maskSecret(secret: string): string {
  return `${secret.slice(0, 7)}...${secret.slice(-4)}`;
}
