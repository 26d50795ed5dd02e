import { accountSuspended, keyRefused } from './errors.ts';
import { ID_PREFIX, sha256Hex } from '../../lib/ids.ts';
import type { Ctx } from '../context.ts';
import { ACTIVE } from '../accounts/codes.ts';
import { findIdentityByKeyId, findIdentityBySecretHash, findIdentityBySessionRef, type KeyIdentity } from '../../store/accounts.ts';
import { isRole, type Principal } from '../roles.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';

/**
 * Resolves a presented API key to its principal. Lookups are cached; a revocation, a role
 * change or a suspension clears the cache on every replica as soon as its change arrives
 * (domain/changes.ts), and the TTL (≤ 1 s) bounds it should a notification be lost.
 */
export class KeyAuthenticator {
  // Single-flight: when an entry expires under load, one lookup serves every waiting request.
  private readonly cache: TtlCache<KeyIdentity | null>;
  /** the same identities by key id: what a port's cookie names (gateway/ports) */
  private readonly byId: TtlCache<KeyIdentity | null>;
  private readonly ctx: Ctx;
  constructor(ctx: Ctx, ttlMs: number) {
    this.ctx = ctx;
    this.cache = new TtlCache(ttlMs, 50_000);
    this.byId = new TtlCache(ttlMs, 50_000);
    // Entries are by secret hash: any change to a key, its member or its team drops them all
    // (these changes are rare next to lookups, and a miss costs one query).
    const clear = () => {
      this.cache.clear();
      this.byId.clear();
    };
    ctx.changes.subscribe('key.changed', clear);
    ctx.changes.subscribe('member.changed', clear);
    ctx.changes.subscribe('team.changed', clear);
    ctx.changes.onResync(clear);
  }

  /** Synchronous while the key's entry is cached (the model hot path); a promise when it is looked up. */
  authenticate(authorization: string | undefined): Principal | Promise<Principal> {
    return this.authenticateHash(sha256Hex(parseAuthorization(authorization)));
  }

  /** The same, from the key's SHA-256 (a console session keeps the hash, never the key). */
  authenticateHash(hash: string): Principal | Promise<Principal> {
    const id = this.cache.get(hash, async () => (await findIdentityBySecretHash(this.ctx.db, hash)) ?? null);
    return id instanceof Promise ? id.then(principalOf) : principalOf(id);
  }

  /**
   * Who the key with this id is, cached as `authenticate` is (dropped by the same changes): for
   * a pass that stands for a key at every request (a port's cookie), which must answer as a call
   * with the key itself would, and as fast.
   */
  authenticateKeyId(keyId: string): Principal | Promise<Principal> {
    const id = this.byId.get(keyId, async () => (await findIdentityByKeyId(this.ctx.db, keyId)) ?? null);
    return id instanceof Promise ? id.then(principalOf) : principalOf(id);
  }

  /**
   * Who the key with this id is now, read from the store past the cache: for what outlives the
   * check that let it start (a terminal, an SSH session: domain/live-sessions), which must see
   * a change the moment it arrives, whatever order the change's subscribers run in.
   */
  async current(keyId: string): Promise<Principal> {
    // a person's console session stands where a key would (domain/console/sessions.ts): its id is the principal's keyId
    const id = isSessionRef(keyId) ? await findIdentityBySessionRef(this.ctx.db, keyId, this.ctx.clock.nowMs()) : await findIdentityByKeyId(this.ctx.db, keyId);
    return principalOf(id ?? null);
  }

  /** Drop a cached entry at once (this replica); other replicas follow within ttlMs. */
  invalidateAll(): void {
    this.cache.clear();
    this.byId.clear();
  }
}

function principalOf(id: KeyIdentity | null): Principal {
  if (!id || id.keyStatus !== ACTIVE || id.memberStatus !== ACTIVE || !isRole(id.role)) {
    throw keyRefused('the API key is invalid or has been revoked');
  }
  if (id.teamStatus !== ACTIVE) throw accountSuspended(id.teamId);
  return { teamId: id.teamId, memberId: id.memberId, keyId: id.keyId, role: id.role };
}

/** Accepts `Bearer sk_…` and, as compat.md decides, the bare key. */
export function parseAuthorization(header: string | undefined): string {
  if (!header) throw keyRefused('missing Authorization header: send "Bearer <API key>"');
  let v = header.trim();
  if (/^bearer\s+/i.test(v)) v = v.replace(/^bearer\s+/i, '');
  if (!/^sk_[A-Za-z0-9_-]{20,128}$/.test(v)) throw keyRefused('malformed API key');
  return v;
}

/** Whether a principal's keyId is a person's console session's id (`ses_…`) rather than an API key's. */
export function isSessionRef(keyId: string): boolean {
  return keyId.startsWith(`${ID_PREFIX.consoleSession}_`);
}
