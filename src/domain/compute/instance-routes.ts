// What the ports proxy (gateway/ports) routes a call by, per instance: whose it is, whether it
// runs, its ports and where they answer. Read from the store once and kept: a call to a port
// reads memory only. `instance.changed` (announced after the commit of any write that changes
// one of these: compute/status.ts writeInstanceTx, and the create) drops the instance on every
// replica (LISTEN/NOTIFY across them); a reconnect drops them all; the TTL (the key cache's,
// ≤ 1 s) bounds an entry should a notification be lost.
import type { Ctx } from '../context.ts';
import { TtlCache } from '../../lib/ttl-cache.ts';
import { findInstance, type InstanceRow } from '../../store/compute.ts';

export type InstanceRoute = Pick<InstanceRow, 'id' | 'teamId' | 'status' | 'ports' | 'portEndpoints'>;

export class InstanceRoutes {
  private readonly cache: TtlCache<InstanceRoute | null>;
  private readonly ctx: Ctx;

  constructor(ctx: Ctx, ttlMs: number) {
    this.ctx = ctx;
    this.cache = new TtlCache(ttlMs, 50_000);
    ctx.changes.subscribe('instance.changed', (c) => this.cache.delete(c.instanceId));
    ctx.changes.onResync(() => this.cache.clear());
  }

  /** The instance's routing facts (null: no such instance); synchronous while cached. */
  get(instanceId: string): InstanceRoute | null | Promise<InstanceRoute | null> {
    return this.cache.get(instanceId, async () => {
      const row = await findInstance(this.ctx.db, instanceId);
      return row ? { id: row.id, teamId: row.teamId, status: row.status, ports: row.ports, portEndpoints: row.portEndpoints } : null;
    });
  }
}
