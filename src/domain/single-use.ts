// Single-use tokens across replicas (an instance port's one-time ticket, gateway/ports/passes.ts):
// a token's nonce is taken once, on every replica that shares Redis, until the token expires.
// Each replica also keeps the nonces it took itself (lib/signed-tokens.ts TakenNonces), so:
// - with Redis reachable, a nonce is taken once across the replicas (SET NX in one step);
// - while Redis cannot be reached (or is not configured: one replica), once per replica (fail
//   open to what a replica knows, as the auth throttle does: a ticket proves who asked, and
//   every request with what it buys checks that key again), and a Redis that lost its data is
//   covered on each replica by its own record.
import { TakenNonces } from '../lib/signed-tokens.ts';

/** Shared taken nonces (adapters/single-use-redis.ts). */
export interface SharedNonces {
  /** true if `nonce` was not taken before: it is taken from now until `expiresAtMs` (the clock's) */
  take(nonce: string, expiresAtMs: number, nowMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export class SingleUse {
  private readonly local = new TakenNonces();
  private readonly shared: SharedNonces | undefined;
  private readonly sharedUp: () => boolean;
  private readonly onError: (err: unknown) => void;

  constructor(d: { shared?: SharedNonces | undefined; sharedUp?: () => boolean; onError?: (err: unknown) => void } = {}) {
    this.shared = d.shared;
    this.sharedUp = d.sharedUp ?? (() => true);
    this.onError = d.onError ?? (() => {});
  }

  /** true if the nonce was not taken before, here or (when shared) on another replica; taken from now on. */
  async take(nonce: string, expiresAtMs: number, nowMs: number): Promise<boolean> {
    if (!this.local.take(nonce, expiresAtMs, nowMs)) return false;
    if (!this.shared || !this.sharedUp()) return true;
    try {
      return await this.shared.take(nonce, expiresAtMs, nowMs);
    } catch (err) {
      this.onError(err); // taken on this replica only until Redis answers again
      return true;
    }
  }

  async close(): Promise<void> {
    await this.shared?.close();
  }
}
