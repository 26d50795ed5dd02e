// The operator token: one secret for the admin API (/admin/v1) and the CLI. Only its SHA-256
// is stored (settings); the token itself is shown once, at first start or at a rotation.
// Every replica reads the hash through a cache of at most 1 s, so a rotation takes effect
// everywhere within that bound, without a restart.
import { timingSafeEqual } from 'node:crypto';
import { newOperatorToken, sha256Hex } from '../lib/ids.ts';
import { TtlCache } from '../lib/ttl-cache.ts';
import { getSetting, replaceSetting } from '../store/settings.ts';
import type { Ctx } from './context.ts';
import { operatorTokenMissing, operatorTokenRefused } from './errors.ts';

export const OPERATOR_TOKEN_KEY = 'operator_token_sha256';


export async function getOperatorTokenHash(ctx: Ctx): Promise<string> {
  const hash = await getSetting<string>(ctx.db, OPERATOR_TOKEN_KEY);
  if (!hash) throw operatorTokenMissing();
  return hash;
}

/**
 * Replace the operator token: the new one works and the old one stops, on every replica,
 * within the verifiers' cache time. Returns the new token (shown once; only its hash is kept).
 * A store that was never bootstrapped has no token to replace: first start creates it.
 */
export async function rotateOperatorToken(ctx: Ctx): Promise<string> {
  const token = newOperatorToken();
  if (!(await replaceSetting(ctx.db, OPERATOR_TOKEN_KEY, sha256Hex(token)))) throw operatorTokenMissing();
  return token;
}

/** Checks a presented operator token against the stored hash, read at most every `ttlMs`. */
export class OperatorTokenVerifier {
  private readonly cache: TtlCache<string>;
  private readonly ctx: Ctx;
  constructor(ctx: Ctx, ttlMs: number) {
    this.ctx = ctx;
    this.cache = new TtlCache(ttlMs, 1);
  }

  /** Read the hash now: fails at build time on a store that was never bootstrapped. */
  async load(): Promise<void> {
    await this.hash();
  }

  /** Synchronous while the hash is cached; a promise when it is read again. Throws UNAUTHORIZED. */
  verify(authorization: string | undefined): Promise<void> | undefined {
    const hash = this.hash();
    if (hash instanceof Promise) return hash.then((h) => check(authorization, h));
    check(authorization, hash);
    return undefined;
  }

  /** The same for a token known by its SHA-256 (an operator console session keeps only that). */
  verifyHash(presentedHash: string): Promise<void> | undefined {
    const hash = this.hash();
    if (hash instanceof Promise) return hash.then((h) => checkHash(presentedHash, h));
    checkHash(presentedHash, hash);
    return undefined;
  }

  private hash(): string | Promise<string> {
    return this.cache.get('hash', () => getOperatorTokenHash(this.ctx));
  }
}

function check(authorization: string | undefined, expectedHash: string): void {
  if (!tokenMatches(authorization, expectedHash)) throw operatorTokenRefused('missing or invalid operator token');
}

function checkHash(presentedHash: string, expectedHash: string): void {
  if (!hashesMatch(presentedHash, expectedHash)) throw operatorTokenRefused('the operator token this session was opened with is no longer valid');
}

function tokenMatches(header: string | undefined, expectedHash: string): boolean {
  if (!header) return false;
  const token = header.replace(/^bearer\s+/i, '').trim();
  return hashesMatch(sha256Hex(token), expectedHash);
}

function hashesMatch(presentedHash: string, expectedHash: string): boolean {
  const a = Buffer.from(presentedHash, 'hex');
  const b = Buffer.from(expectedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
