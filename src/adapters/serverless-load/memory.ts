// The serverless router's shared load in one process (domain/serverless/load.ts): everything
// in memory. Replicas share it through Redis instead (redis.ts).
import type { QueueState, WorkerActivity, WorkerLoad } from '../../domain/serverless/load.ts';

interface Slot {
  token: string;
  untilMs: number;
}

/** One process: everything in memory. */
export class MemoryLoad implements WorkerLoad {
  private readonly slots = new Map<string, Slot[]>();
  private readonly lastBusy = new Map<string, number>();
  private readonly queues = new Map<string, QueueState>();
  private next = 0;

  private live(workerId: string, nowMs: number): Slot[] {
    const list = (this.slots.get(workerId) ?? []).filter((s) => s.untilMs > nowMs);
    this.slots.set(workerId, list);
    return list;
  }

  async tryAcquire(workerId: string, max: number, leaseMs: number, nowMs: number): Promise<string | null> {
    const list = this.live(workerId, nowMs);
    if (list.length >= max) return null;
    const token = String(++this.next);
    list.push({ token, untilMs: nowMs + leaseMs });
    this.lastBusy.set(workerId, nowMs);
    return token;
  }

  async release(workerId: string, token: string, nowMs: number): Promise<void> {
    const list = this.slots.get(workerId);
    if (!list) return;
    const i = list.findIndex((s) => s.token === token);
    if (i >= 0) list.splice(i, 1);
    this.lastBusy.set(workerId, nowMs);
  }

  async activity(workerIds: string[], nowMs: number): Promise<Map<string, WorkerActivity>> {
    return new Map(workerIds.map((id) => [id, { inflight: this.live(id, nowMs).length, lastBusyAtMs: this.lastBusy.get(id) ?? 0 }]));
  }

  async reportQueue(endpointId: string, q: QueueState): Promise<void> {
    if (q.waiting === 0) this.queues.delete(endpointId);
    else this.queues.set(endpointId, q);
  }

  async queue(endpointId: string): Promise<QueueState> {
    return this.queues.get(endpointId) ?? { waiting: 0, oldestSinceMs: null };
  }

  async close(): Promise<void> {}
}
