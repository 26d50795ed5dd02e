// How each model's upstream answers this replica's calls: consecutive failures, the last
// error, the last success, kept in memory and written to the store (domain/models/catalogue.ts
// recordUpstreamHealth) only when it changes in a way the operator needs to see: every failure
// (writes coalesced per model: one in flight, the latest state after it), the first success
// after failures, and otherwise a success at most once a minute. A healthy model's requests
// never wait for, nor cause, a write each.
import type { Logger } from '../../lib/logger.ts';
import type { Ctx } from '../../domain/context.ts';
import { recordUpstreamHealth } from '../../domain/models/catalogue.ts';

/** A success is written again at most this often while the model keeps succeeding. */
const SUCCESS_WRITE_EVERY_MS = 60_000;

interface State {
  consecutiveFailures: number;
  lastError: string | null;
  lastErrorAt: number | null;
  lastSuccessAt: number | null;
  /** when a success was last written (so a success on a healthy model writes at most once a minute) */
  successWrittenAt: number;
  writing: Promise<void> | undefined;
  again: boolean;
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
      s = { consecutiveFailures: 0, lastError: null, lastErrorAt: null, lastSuccessAt: null, successWrittenAt: -Infinity, writing: undefined, again: false };
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

  /** One write in flight per model; whatever changed meanwhile is written once after it. */
  private write(modelId: string, s: State): void {
    if (s.writing !== undefined) {
      s.again = true;
      return;
    }
    s.writing = (async () => {
      do {
        s.again = false;
        const date = (ms: number | null) => (ms === null ? null : new Date(ms));
        try {
          await recordUpstreamHealth(this.ctx, {
            modelId, consecutiveFailures: s.consecutiveFailures, lastError: s.lastError, lastErrorAt: date(s.lastErrorAt), lastSuccessAt: date(s.lastSuccessAt),
          });
        } catch (e) {
          this.log.warn({ err: e, model: modelId }, 'recording the upstream\'s health failed; the next change writes it again');
          return;
        }
      } while (s.again);
    })().finally(() => { s.writing = undefined; });
  }

  /** The writes in flight (the gateway waits for them before the store closes). */
  async settled(): Promise<void> {
    await Promise.all([...this.states.values()].map((s) => s.writing));
  }
}
