import { randomBytes, randomFillSync, createHash, hash } from 'node:crypto';

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
  statement: 'stm',
  job: 'job',
  endpoint: 'ep',
  worker: 'wk',
  file: 'file',
  response: 'resp',
  batch: 'batch',
  webhookEndpoint: 'whep',
  /** a webhook delivery: the Standard Webhooks message id (`webhook-id`) */
  webhookDelivery: 'msg',
  mediaModel: 'mm',
  task: 'task',
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

// Random bytes come from a pool refilled 4 KiB at a time: one randomBytes call per id
// costs a syscall-sized overhead on the model request path, which mints three ids.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function encodeRandom(chars: number): string {
  if (poolAt + chars > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  let out = '';
  for (let i = 0; i < chars; i++) out += ALPHABET[pool[poolAt + i]! & 31];
  poolAt += chars;
  return out;
}

/** Prefixed, time-sortable id: `<prefix>_<10 chars time><12 chars random>`. */
export function newId(kind: IdKind, nowMs: number = Date.now()): string {
  return `${ID_PREFIX[kind]}_${encodeTime(nowMs)}${encodeRandom(12)}`;
}

/**
 * An id that is also a DNS label (`ep-…`, `wk-…`): endpoint ids are the default `appName`,
 * which must match `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`, and the URL host of host-based routing.
 */
export function newDnsId(kind: 'endpoint' | 'worker', nowMs: number = Date.now()): string {
  return `${ID_PREFIX[kind]}-${encodeTime(nowMs)}${encodeRandom(12)}`;
}

/**
 * The id of something computed, not stored (a team's monthly statement): the same inputs
 * always give the same id, in the shape of newId, time-sortable by `atMs`.
 */
export function derivedId(kind: IdKind, atMs: number, key: string): string {
  const digest = createHash('sha256').update(key).digest();
  let tail = '';
  for (let i = 0; i < 12; i++) tail += ALPHABET[digest[i]! & 31];
  return `${ID_PREFIX[kind]}_${encodeTime(atMs)}${tail}`;
}

/** API key secret: `sk_` + 32 random bytes, base64url. */
export function newApiKeySecret(): string {
  return 'sk_' + randomBytes(32).toString('base64url');
}

export function newOperatorToken(): string {
  return 'gop_' + randomBytes(32).toString('base64url');
}

export function sha256Hex(s: string): string {
  return hash('sha256', s, 'hex'); // one-shot: 0.4 µs against createHash's 1.1 (every request hashes its key)
}

/** Short display form of a secret: first 7 and last 4 characters. */
export function maskSecret(secret: string): string {
  return `${secret.slice(0, 7)}...${secret.slice(-4)}`;
}
