// What the router knows and the autoscaler needs, shared by every replica: each worker's
// requests in flight (its `maxConcurrent` slots) and when it last had any, and each
// endpoint's waiting requests. The port; its implementations are in
// adapters/serverless-load/: one process keeps it in memory (memory.ts), replicas share it
// through Redis (redis.ts), so per-worker concurrency holds across them and the autoscaler
// on one replica sees the queues of all.

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
