import { AppError } from '../../lib/errors.ts';
import { sha256Hex } from '../../lib/ids.ts';
import type { Ctx } from '../context.ts';
import { findIdentityBySecretHash, type KeyIdentity } from '../../store/accounts.ts';
import { isRole, type Principal } from '../roles.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';

/**
 * Resolves a presented API key to its principal. Lookups are cached for at most `ttlMs`
 * (≤ 1 s), which is the bound on how long a revoked key keeps working on any replica:
 * every replica re-reads the key from the shared store once its entry expires.
 */
export class KeyAuthenticator {
  // Single-flight: when an entry expires under load, one lookup serves every waiting request.
  private readonly cache: TtlCache<KeyIdentity | null>;
  private readonly ctx: Ctx;
  constructor(ctx: Ctx, ttlMs: number) {
    this.ctx = ctx;
    this.cache = new TtlCache(ttlMs, 50_000);
  }

  /** Synchronous while the key's entry is cached (the model hot path); a promise when it is looked up. */
  authenticate(authorization: string | undefined): Principal | Promise<Principal> {
    const secret = parseAuthorization(authorization);
    const hash = sha256Hex(secret);
    const id = this.cache.get(hash, async () => (await findIdentityBySecretHash(this.ctx.db, hash)) ?? null);
    return id instanceof Promise ? id.then(principalOf) : principalOf(id);
  }

  /** Drop a cached entry at once (this replica); other replicas follow within ttlMs. */
  invalidateAll(): void {
    this.cache.clear();
  }
}

function principalOf(id: KeyIdentity | null): Principal {
  if (!id || id.keyStatus !== 'active' || id.memberStatus !== 'active' || !isRole(id.role)) {
    throw new AppError('UNAUTHORIZED', 'the API key is invalid or has been revoked');
  }
  if (id.teamStatus !== 'active') throw new AppError('FORBIDDEN', 'the account is suspended', { userId: id.teamId });
  return { teamId: id.teamId, memberId: id.memberId, keyId: id.keyId, role: id.role };
}

/** Accepts `Bearer sk_…` and, as compat.md decides, the bare key. */
export function parseAuthorization(header: string | undefined): string {
  if (!header) throw new AppError('UNAUTHORIZED', 'missing Authorization header: send "Bearer <API key>"');
  let v = header.trim();
  if (/^bearer\s+/i.test(v)) v = v.replace(/^bearer\s+/i, '');
  if (!/^sk_[A-Za-z0-9_-]{20,128}$/.test(v)) throw new AppError('UNAUTHORIZED', 'malformed API key');
  return v;
}
