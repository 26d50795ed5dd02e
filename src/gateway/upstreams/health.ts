// How each model's upstream answers this replica's calls: consecutive failures, the last
// error, the last success, kept in memory and written to the store (domain/models/catalogue.ts
// recordUpstreamHealth) only when it changes in a way the operator needs to see. A healthy
// model's requests never wait for, nor cause, a write each:
// - a failure is written at once when the model was not failing, and while it keeps failing
//   at most once a second per model (an upstream that is down under load fails every
//   request: the row holds the latest count, not one write per request);
// - the first success after failures is written at once (the rate above still applies);
// - otherwise a success is written at most once a minute (of the clock), so `lastSuccessAt`
//   stays about fresh.
import type { Logger } from '../../lib/logger.ts';
import type { Ctx } from '../../domain/context.ts';
import { recordUpstreamHealth } from '../../domain/models/catalogue.ts';

/** A success is written again at most this often (clock time) while the model keeps succeeding. */
const SUCCESS_WRITE_EVERY_MS = 60_000;
/** The fewest milliseconds (real time: it bounds the store's load, not what the clock says) between two writes of one model. */
const WRITE_EVERY_MS = 1_000;

interface State {
  consecutiveFailures: number;
  lastError: string | null;
  lastErrorAt: number | null;
  lastSuccessAt: number | null;
  /** clock time a success was last written (a success on a healthy model writes at most once a minute) */
  successWrittenAt: number;
  /** performance.now() of the last write */
  wroteAt: number;
  /** something changed that no write has taken yet */
  dirty: boolean;
  writing: Promise<void> | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class UpstreamHealthTracker {
  private readonly states = new Map<string, State>();
  private readonly ctx: Ctx;
  private readonly log: Logger;

  constructor(ctx: Ctx, log: Logger) {
    this.ctx = ctx;
    this.log = log;
  }

  private state(modelId: string): State {
    let s = this.states.get(modelId);
    if (!s) {
      s = {
        consecutiveFailures: 0, lastError: null, lastErrorAt: null, lastSuccessAt: null,
        successWrittenAt: -Infinity, wroteAt: -Infinity, dirty: false, writing: undefined, timer: undefined,
      };
      this.states.set(modelId, s);
    }
    return s;
  }

  success(modelId: string): void {
    const s = this.state(modelId);
    const now = this.ctx.clock.nowMs();
    s.lastSuccessAt = now;
    if (s.consecutiveFailures === 0 && now - s.successWrittenAt < SUCCESS_WRITE_EVERY_MS) return;
    s.consecutiveFailures = 0;
    s.successWrittenAt = now;
    this.write(modelId, s);
  }

  failure(modelId: string, err: unknown): void {
    const s = this.state(modelId);
    s.consecutiveFailures++;
    s.lastError = (err instanceof Error ? err.message : String(err)).slice(0, 500);
    s.lastErrorAt = this.ctx.clock.nowMs();
    this.write(modelId, s);
  }

  /** Writes now, or once the model's last write is a second old; a write in flight or a timer set already takes this change. */
  private write(modelId: string, s: State): void {
    s.dirty = true;
    if (s.writing !== undefined || s.timer !== undefined) return;
    const wait = s.wroteAt + WRITE_EVERY_MS - performance.now();
    if (wait <= 0) {
      this.flush(modelId, s);
      return;
    }
    s.timer = setTimeout(() => {
      s.timer = undefined;
      this.flush(modelId, s);
    }, wait);
    s.timer.unref();
  }

  private flush(modelId: string, s: State): void {
    s.dirty = false;
    s.wroteAt = performance.now();
    const date = (ms: number | null) => (ms === null ? null : new Date(ms));
    s.writing = recordUpstreamHealth(this.ctx, {
      modelId, consecutiveFailures: s.consecutiveFailures, lastError: s.lastError, lastErrorAt: date(s.lastErrorAt), lastSuccessAt: date(s.lastSuccessAt),
    }).catch((e: unknown) => {
      this.log.warn({ err: e, model: modelId }, 'recording the upstream\'s health failed; the next change writes it again');
    }).finally(() => {
      s.writing = undefined;
      if (s.dirty) this.write(modelId, s);
    });
  }

  /** Consecutive failures by model, as this replica counts them (the /metrics gauge). */
  failures(): Map<string, number> {
    return new Map([...this.states].map(([model, s]) => [model, s.consecutiveFailures]));
  }

  /** Writes what is waiting for its second now and waits for every write (the gateway's close, before the store closes; tests). */
  async settled(): Promise<void> {
    for (const [modelId, s] of this.states) {
      if (s.timer === undefined) continue;
      clearTimeout(s.timer);
      s.timer = undefined;
      if (s.writing === undefined) this.flush(modelId, s);
    }
    await Promise.all([...this.states.values()].map((s) => s.writing));
    if ([...this.states.values()].some((s) => s.timer !== undefined || s.writing !== undefined)) await this.settled(); // a write that finished dirty started another
  }
}
