// Runs the compute reconciler in the background: a pass every intervalMs, one pass at a time
// per process, leases in the store so several replicas can run it at once. Tests do not
// start it; they call tick() after advancing the ManualClock.
import type { Compute } from '../domain/compute/compute.ts';
import { reconcileDue } from '../domain/compute/reconciler.ts';

export interface LoopLog {
  error(obj: object, msg: string): void;
}

export class ComputeReconcileLoop {
  private readonly c: Compute;
  private readonly intervalMs: number;
  private readonly log: LoopLog | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> = Promise.resolve(0);
  private stopped = true;

  constructor(c: Compute, intervalMs: number, log?: LoopLog) {
    this.c = c;
    this.intervalMs = intervalMs;
    this.log = log;
  }

  /** One pass now (after any pass in flight); resolves to how many instances were looked at. */
  tick(): Promise<number> {
    this.running = this.running.catch(() => 0).then(() => reconcileDue(this.c, {
      onError: (id, err) => this.log?.error({ err, instanceId: id }, 'reconcile failed; will retry'),
    }));
    return this.running;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = () => {
      if (this.stopped) return;
      this.tick().catch((err) => this.log?.error({ err }, 'reconcile pass failed')).finally(() => {
        if (!this.stopped) {
          this.timer = setTimeout(loop, this.intervalMs);
          this.timer.unref();
        }
      });
    };
    this.timer = setTimeout(loop, 0);
    this.timer.unref();
  }

  /** Stop scheduling and wait for the pass in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running.catch(() => 0);
  }
}
