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
  /** an SSH public key a member registered (domain/keys/ssh-keys.ts) */
  sshKey: 'sshk',
  /** a person: someone who signs in with an e-mail address and a password (domain/accounts/persons.ts) */
  person: 'psn',
  /** a console session, as its person lists and revokes it (the cookie's secret is never an id) */
  consoleSession: 'ses',
  /** an invitation to a team (domain/accounts/invitations.ts) */
  invitation: 'inv',
  /** a one-time link sent by e-mail: confirm, reset, invite (domain/accounts/links.ts) */
  link: 'lnk',
  /** a grant that makes a person an operator (domain/accounts/operators.ts) */
  operatorGrant: 'opg',
  /** a card top-up a member started (domain/payments): the Checkout Session's client_reference_id */
  cardTopup: 'tup',
} as const;
export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case
const ALPHABET_CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));

// Ids are written into one byte buffer and read out as one flat string. Built a character
// at a time, an id was a rope of ~22 string pieces, ~100 bytes more than the flat string for
// as long as it lived: the model path mints three ids a request and keeps the request's for
// its whole life (bench/gateway/rate-window.ts).
const scratch = Buffer.alloc(64);

/** `prefix`, the separator, then `ms` in 10 base32 characters, most significant first; returns the end. */
function writeHead(prefix: string, separator: string, ms: number): number {
  let at = 0;
  for (let i = 0; i < prefix.length; i++) scratch[at++] = prefix.charCodeAt(i);
  scratch[at++] = separator.charCodeAt(0);
  let n = ms;
  for (let i = 9; i >= 0; i--) {
    scratch[at + i] = ALPHABET_CODES[n % 32]!;
    n = Math.floor(n / 32);
  }
  return at + 10;
}

// Random bytes come from a pool refilled 4 KiB at a time: one randomBytes call per id
// costs a syscall-sized overhead on the model request path, which mints three ids.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/** `chars` random base32 characters at `at`; returns the end. */
function writeRandom(at: number, chars: number): number {
  if (poolAt + chars > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  for (let i = 0; i < chars; i++) scratch[at + i] = ALPHABET_CODES[pool[poolAt + i]! & 31]!;
  poolAt += chars;
  return at + chars;
}

/** Prefixed, time-sortable id: `<prefix>_<10 chars time><12 chars random>`. */
export function newId(kind: IdKind, nowMs: number = Date.now()): string {
  return scratch.toString('latin1', 0, writeRandom(writeHead(ID_PREFIX[kind], '_', nowMs), 12));
}

/**
 * An id that is also a DNS label (`ep-…`, `wk-…`): endpoint ids are the default `appName`,
 * which must match `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`, and the URL host of host-based routing.
 */
export function newDnsId(kind: 'endpoint' | 'worker', nowMs: number = Date.now()): string {
  return scratch.toString('latin1', 0, writeRandom(writeHead(ID_PREFIX[kind], '-', nowMs), 12));
}

/**
 * The id of something computed, not stored (a team's monthly statement): the same inputs
 * always give the same id, in the shape of newId, time-sortable by `atMs`.
 */
export function derivedId(kind: IdKind, atMs: number, key: string): string {
  const digest = createHash('sha256').update(key).digest();
  const at = writeHead(ID_PREFIX[kind], '_', atMs);
  for (let i = 0; i < 12; i++) scratch[at + i] = ALPHABET_CODES[digest[i]! & 31]!;
  return scratch.toString('latin1', 0, at + 12);
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
