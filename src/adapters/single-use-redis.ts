// Taken nonces of single-use tokens in Redis (domain/single-use.ts), shared by every replica:
// one `SET key 1 PX <ms until the token expires> NX` takes a nonce or finds it taken, in one
// step. Redis unreachable: the command fails at once (RedisClient: no offline queue, a short
// deadline) and the replica's own record stands meanwhile.
import type { SharedNonces } from '../domain/single-use.ts';
import { RedisClient } from './redis-client.ts';

export class RedisNonces implements SharedNonces {
  private readonly client: RedisClient;
  private readonly prefix: string;

  /** `namespace`: the installation's in a shared Redis (GANTRY_REDIS_PREFIX) */
  constructor(opts: { url: string; commandTimeoutMs?: number; namespace?: string }) {
    this.client = new RedisClient(opts.url, opts.commandTimeoutMs ?? 250);
    this.prefix = `${opts.namespace ?? ''}nonce:`;
  }

  async take(nonce: string, expiresAtMs: number, nowMs: number): Promise<boolean> {
    const ttlMs = Math.max(1, Math.ceil(expiresAtMs - nowMs));
    return (await this.client.run(() => this.client.redis.set(this.prefix + nonce, '1', 'PX', ttlMs, 'NX'))) === 'OK';
  }

  async close(): Promise<void> {
    await this.client.redis.quit().catch(() => this.client.redis.disconnect());
  }
}
