// Per-endpoint, per-minute metrics: the requests each replica's router saw end (answered or
// failed) and what the reconciler saw at each pass (waiting requests, workers running,
// starting, desired). Counted in memory on the hot path and flushed every few seconds as
// additive upserts (store/serverless-metrics.ts), so replicas serving one endpoint add up and
// a request never costs a database write. Rules in ./README.md ("Metrics").
import type { Ctx } from '../context.ts';
import { addEndpointMetrics, type MetricsInsert } from '../../store/serverless-metrics.ts';

/** How long minutes are kept: swept by the reconciler (docs/compat-decisions.md). */
export const METRICS_RETENTION_MS = 30 * 86_400_000;
export const MINUTE_MS = 60_000;

/** What one reconciler pass saw of an endpoint. */
export interface EndpointSample {
  waiting: number;
  running: number;
  starting: number;
  desired: number;
}

/** One endpoint-minute's counts, as the table's columns (sums over the minute's samples). */
type Counts = Required<Omit<MetricsInsert, 'endpointId' | 'minuteMs'>>;

function zero(): Counts {
  return { answered: 0, failed: 0, samples: 0, waitingSum: 0, waitingPeak: 0, runningSum: 0, startingSum: 0, desiredSum: 0 };
}

export class EndpointMetrics {
  private readonly ctx: Ctx;
  private readonly flushMs: number;
  private readonly onError: (err: unknown) => void;
  /** counts not yet flushed, by `${endpointId}|${minuteMs}` */
  private pending = new Map<string, { endpointId: string; minuteMs: number; c: Counts }>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(ctx: Ctx, opts: { flushMs?: number; onError?: (err: unknown) => void } = {}) {
    this.ctx = ctx;
    this.flushMs = opts.flushMs ?? 5000;
    this.onError = opts.onError ?? (() => {});
  }

  private at(endpointId: string): Counts {
    const minuteMs = Math.floor(this.ctx.clock.nowMs() / MINUTE_MS) * MINUTE_MS;
    const key = `${endpointId}|${minuteMs}`;
    let e = this.pending.get(key);
    if (!e) {
      e = { endpointId, minuteMs, c: zero() };
      this.pending.set(key, e);
    }
    return e.c;
  }

  /** A request of the endpoint ended: a worker answered below 500 (`ok`), or it failed. */
  request(endpointId: string, ok: boolean): void {
    const c = this.at(endpointId);
    if (ok) c.answered++;
    else c.failed++;
  }

  /** One reconciler pass's look at the endpoint. */
  sample(endpointId: string, s: EndpointSample): void {
    const c = this.at(endpointId);
    c.samples++;
    c.waitingSum += s.waiting;
    c.waitingPeak = Math.max(c.waitingPeak, s.waiting);
    c.runningSum += s.running;
    c.startingSum += s.starting;
    c.desiredSum += s.desired;
  }

  /**
   * Write what was counted since the last flush (one statement). Flushes run one after the
   * other; a failed one puts its counts back, to be written by the next.
   */
  flush(): Promise<void> {
    const next = this.flushing.then(() => this.flushOnce());
    this.flushing = next.catch(() => {});
    return next;
  }

  private async flushOnce(): Promise<void> {
    if (!this.pending.size) return;
    const taken = this.pending;
    this.pending = new Map();
    try {
      await addEndpointMetrics(this.ctx.db, [...taken.values()].map((e) => ({ endpointId: e.endpointId, minuteMs: e.minuteMs, ...e.c })));
    } catch (err) {
      for (const [key, e] of taken) {
        const now = this.pending.get(key);
        if (!now) {
          this.pending.set(key, e);
          continue;
        }
        const c = now.c;
        c.answered += e.c.answered; c.failed += e.c.failed; c.samples += e.c.samples; c.waitingSum += e.c.waitingSum;
        c.waitingPeak = Math.max(c.waitingPeak, e.c.waitingPeak);
        c.runningSum += e.c.runningSum; c.startingSum += e.c.startingSum; c.desiredSum += e.c.desiredSum;
      }
      throw err;
    }
  }

  /** Flush every few seconds in the background. */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.flush().catch(this.onError), this.flushMs);
    this.timer.unref();
  }

  /** Stop the timer and write what is left. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush().catch(this.onError);
  }
}
