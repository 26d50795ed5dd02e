// What the router knows and the autoscaler needs, shared by every replica: each worker's
// requests in flight (its `maxConcurrent` slots) and when it last had any, and each
// endpoint's waiting requests. One process keeps it in memory (MemoryLoad); replicas share
// it through Redis (store/serverless-load-redis.ts), so per-worker concurrency holds across
// them and the autoscaler on one replica sees the queues of all.

export interface WorkerActivity {
  inflight: number;
  /** when a request last started or ended on it (0: never) */
  lastBusyAtMs: number;
}

export interface QueueState {
  waiting: number;
  /** when the oldest waiting request arrived (null: none waits) */
  oldestSinceMs: number | null;
}

export interface WorkerLoad {
  /**
   * Take one of the worker's `max` slots for at most `leaseMs` (a replica that dies gives
   * its slots back when their leases end). Resolves to a token for release(), or null when
   * every slot is taken.
   */
  tryAcquire(workerId: string, max: number, leaseMs: number, nowMs: number): Promise<string | null>;
  release(workerId: string, token: string, nowMs: number): Promise<void>;
  activity(workerIds: string[], nowMs: number): Promise<Map<string, WorkerActivity>>;
  /** This replica's waiting requests of an endpoint (replaces what it reported before). */
  reportQueue(endpointId: string, q: QueueState, nowMs: number): Promise<void>;
  /** The waiting requests of every replica together. */
  queue(endpointId: string, nowMs: number): Promise<QueueState>;
  close(): Promise<void>;
}

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
